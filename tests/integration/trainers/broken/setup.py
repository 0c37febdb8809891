raise RuntimeError("this setup.py is broken on purpose")
