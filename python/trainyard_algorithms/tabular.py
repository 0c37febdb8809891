"""Tabular data for the built-in algorithms: the CSV files, their checks and --preprocess.

The data format is Google's for the built-in tabular algorithms
(docs/reference/ai-platform-training.md §12): CSV, UTF-8, no
header row, the target in the first column. A file that breaks it fails the job with a message
naming the file (its gs:// URI), the line and what is wrong (`DataError`), before anything is
written.

--preprocess, as documented: splits off validation_split and test_split of the rows, drops rows
with more than 10 % of their values missing, fills a numeric column's missing values with its mean
and one-hot encodes categorical columns (missing: all zeros). The statistics are taken from the
training rows and written to artifacts/metadata.json, so the same transformation can be applied
to new data.
"""

import csv
import io
import json
import math
import os
import random
import warnings

MAX_MISSING_FRACTION = 0.10
READ_CHUNK = 1 << 20


class DataError(Exception):
    """What is wrong with the data, naming the file and line; the job fails with it."""


def local_path(uri):
    """A gs:// URI's file in trainyard's bucket store ($TRAINYARD_GCS_MOUNT); other paths as is."""
    if not uri.startswith('gs://'):
        return uri
    mount = os.environ.get('TRAINYARD_GCS_MOUNT', '')
    if not mount:
        raise DataError('{}: no bucket store to read it from (TRAINYARD_GCS_MOUNT is not set)'
                        .format(uri))
    parts = [p for p in uri[len('gs://'):].split('/') if p]
    if not parts or any(p in ('.', '..') for p in parts):
        raise DataError('{}: not a gs://bucket/object path'.format(uri))
    return os.path.join(mount, *parts)


def _number(text):
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _missing(text):
    return text.strip() == ''


def read_csv(uri, on_read=None):
    """The rows of a CSV file, (line, [value as text, …]) each, checked: not empty, UTF-8, no
    header, the same number of columns on every line, a numeric target on every line. A file of
    finite numbers only, none missing (the common case), is parsed at once by numpy (NumericRows);
    any other takes the careful path, line by line, which names what is wrong and where.
    `on_read(n)`, when given, is told of every READ_CHUNK of n bytes read."""
    path = local_path(uri)
    try:
        with open(path, 'rb') as data:
            chunks = []
            while True:
                chunk = data.read(READ_CHUNK)
                if not chunk:
                    break
                chunks.append(chunk)
                if on_read is not None:
                    on_read(len(chunk))
            raw = b''.join(chunks)
    except FileNotFoundError:
        raise DataError('{}: no such object'.format(uri)) from None
    except OSError as error:
        raise DataError('{}: cannot be read: {}'.format(uri, error.strerror)) from None
    try:
        text = raw.decode('utf-8')
    except UnicodeDecodeError as error:
        line = raw[:error.start].count(b'\n') + 1
        raise DataError('{} line {}: not UTF-8 text'.format(uri, line)) from None
    return _numeric_rows(text) or _checked_rows(text, uri)


def _numeric_rows(text):
    """The common case at C speed: NumericRows when numpy's parser reads the whole text as one
    table of finite numbers, at least two columns wide, one row a line; else None, and the careful
    path (_checked_rows) reads it, finding what is wrong. Text with quotes, carriage returns or
    blank lines (or lines that start with a blank) always takes the careful path, so that a row's
    place is its line."""
    import numpy as np
    body = text[:-1] if text.endswith('\n') else text
    if (not body or body[0] in ' \t\n' or any(mark in body for mark in
                                               ('"', '\r', '\n\n', '\n ', '\n\t'))):
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            matrix = np.loadtxt(io.StringIO(body), delimiter=',', dtype=float, comments=None,
                                ndmin=2)
    except ValueError:
        return None
    if matrix.shape[0] == 0 or matrix.shape[1] < 2 or not np.isfinite(matrix).all():
        return None
    return NumericRows(matrix, np.arange(1, matrix.shape[0] + 1))


class NumericRows:
    """The rows of an all-numeric file (_numeric_rows), as one float array and the rows' line
    numbers: a sequence of (line, [value as text, …]) like the careful path's list, whose slices
    and index lists are NumericRows again; the code that can use the array does
    (_numeric_matrix, line_numbers, take, concat)."""

    def __init__(self, matrix, lines):
        self.matrix = matrix
        self.lines = lines

    def __len__(self):
        return self.matrix.shape[0]

    def __getitem__(self, key):
        if isinstance(key, slice):
            return NumericRows(self.matrix[key], self.lines[key])
        return int(self.lines[key]), [repr(float(v)) for v in self.matrix[key]]

    def __iter__(self):
        return (self[i] for i in range(len(self)))


def line_numbers(rows):
    """The line number of every row."""
    if isinstance(rows, NumericRows):
        return rows.lines.tolist()
    return [number for number, _ in rows]


def take(rows, indices):
    """The rows at `indices`, in that order."""
    if isinstance(rows, NumericRows):
        return NumericRows(rows.matrix[indices], rows.lines[indices])
    return [rows[i] for i in indices]


def concat(parts):
    """The rows of every part, in order (NumericRows when every part is)."""
    if parts and all(isinstance(part, NumericRows) for part in parts):
        import numpy as np
        return NumericRows(np.vstack([part.matrix for part in parts]),
                           np.concatenate([part.lines for part in parts]))
    return [row for part in parts for row in part]


def _checked_rows(text, uri):
    """The careful path: the rows as lists of strings, each line checked."""
    rows = []
    width = None
    for number, row in enumerate(csv.reader(io.StringIO(text)), start=1):
        if not row or (len(row) == 1 and row[0].strip() == ''):
            continue  # a blank line
        if width is None:
            width = len(row)
            if width < 2:
                raise DataError('{} line {}: one column; the target and at least one feature '
                                'are needed'.format(uri, number))
        elif len(row) != width:
            raise DataError('{} line {}: {} columns, but the first line has {}'
                            .format(uri, number, len(row), width))
        if _number(row[0]) is None and not _missing(row[0]):
            if number == 1 and sum(_number(v) is None for v in row) > len(row) // 2:
                raise DataError('{} line 1: looks like a header row ({}); the CSV must have no '
                                'header, the target in the first column'
                                .format(uri, ','.join(row[:4])))
            raise DataError('{} line {}: the target (first column) "{}" is not a number'
                            .format(uri, number, row[0]))
        rows.append((number, row))
    if not rows:
        raise DataError('{}: the file is empty'.format(uri))
    return rows


def _numbers(rows, column, strict=True):
    """The column of `rows` as a float array, NaN where a value is missing; with `strict`, None
    when a present value is not a (finite) number, else NaN for it. numpy parses a column of
    plain numbers at C speed; any other column takes the value-by-value path."""
    import numpy as np
    texts = [row[column] for _, row in rows]
    try:
        values = np.array(texts, dtype=float)
        if np.isfinite(values).all():
            return values
    except ValueError:
        pass
    values = np.empty(len(texts))
    for i, text in enumerate(texts):
        number = float('nan') if _missing(text) else _number(text)
        if number is None:
            if strict:
                return None
            number = float('nan')
        values[i] = number
    return values


def _numeric_matrix(rows):
    """All of `rows` as one float array when every value is a finite number (none missing), else
    None: the common case, parsed at C speed in one pass."""
    import numpy as np
    if isinstance(rows, NumericRows):
        return rows.matrix
    try:
        matrix = np.array([row for _, row in rows], dtype=float)
    except ValueError:
        return None
    return matrix if matrix.ndim == 2 and np.isfinite(matrix).all() else None


def _column_types(rows, width):
    """'numerical' for a column whose present values are all numbers, else 'categorical'."""
    return ['numerical' if _numbers(rows, column) is not None else 'categorical'
            for column in range(1, width)]


def split(rows, validation_split, test_split, seed):
    """(training, validation, test) rows: a seeded shuffle, then the documented fractions."""
    order = list(range(len(rows)))
    random.Random(seed).shuffle(order)  # the same order as shuffling the rows themselves
    n = len(order)
    n_validation = int(round(n * validation_split))
    n_test = int(round(n * test_split))
    test = take(rows, order[:n_test])
    validation = take(rows, order[n_test:n_test + n_validation])
    training = take(rows, order[n_test + n_validation:])
    return training, validation, test


class Preprocessor:
    """The column statistics of the training rows, and the transformation they define."""

    def __init__(self, training_rows, uri, preprocess):
        import numpy as np
        width = len(training_rows[0][1])
        self.width = width
        self.preprocess = preprocess
        matrix = _numeric_matrix(training_rows)
        self.types = (['numerical'] * (width - 1) if matrix is not None else
                      _column_types(training_rows, width))
        self.columns = []
        for column, kind in enumerate(self.types, start=1):
            if kind == 'categorical' and not preprocess:
                number, row = next((n, r) for n, r in training_rows
                                   if not _missing(r[column]) and _number(r[column]) is None)
                raise DataError('{} line {}: column {} "{}" is not a number (--preprocess '
                                'encodes categorical columns)'
                                .format(uri, number, column + 1, row[column]))
            stats = {'index': column, 'type': kind}
            if kind == 'numerical':
                numbers = (matrix[:, column] if matrix is not None else
                           _numbers(training_rows, column))
                present = numbers[~np.isnan(numbers)]
                mean = float(present.mean()) if present.size else 0.0
                stats.update(missing=int(numbers.size - present.size), mean=mean,
                             min=float(present.min()) if present.size else 0.0,
                             max=float(present.max()) if present.size else 0.0,
                             stddev=math.sqrt(float(((present - mean) ** 2).mean()))
                             if present.size else 0.0)
            else:
                values = [row[column] for _, row in training_rows if not _missing(row[column])]
                stats['missing'] = len(training_rows) - len(values)
                stats['vocabulary'] = sorted(set(v.strip() for v in values))
            self.columns.append(stats)

    def feature_names(self):
        names = []
        for stats in self.columns:
            if stats['type'] == 'numerical':
                names.append('col_{}'.format(stats['index']))
            else:
                names.extend('col_{}={}'.format(stats['index'], v) for v in stats['vocabulary'])
        return names

    def transform(self, rows):
        """(features, targets): a float array of a row per row and a feature per column (a
        numeric column's value, NaN when it is not a number, and when it is missing without
        --preprocess: XGBoost treats NaN as missing; a categorical column's one-hot block), and
        the targets as a list."""
        import numpy as np
        if all(kind == 'numerical' for kind in self.types):
            matrix = _numeric_matrix(rows)
            if matrix is not None:
                return matrix[:, 1:], matrix[:, 0].tolist()
        blocks = []
        for stats in self.columns:
            column = stats['index']
            if stats['type'] == 'numerical':
                values = _numbers(rows, column, strict=False)
                if self.preprocess and np.isnan(values).any():
                    missing = np.array([_missing(row[column]) for _, row in rows], dtype=bool)
                    values[missing] = stats['mean']
                blocks.append(values[:, None])
            else:
                words = [row[column].strip() for _, row in rows]
                blocks.append(np.array([[1.0 if word == v else 0.0 for v in stats['vocabulary']]
                                        for word in words]).reshape(len(rows), -1))
        features = np.hstack(blocks) if blocks else np.zeros((len(rows), 0))
        return features, [float(row[0]) for _, row in rows]

    def metadata(self):
        return {'target_column': 0, 'columns': self.columns,
                'feature_names': self.feature_names(), 'preprocess': self.preprocess,
                'max_missing_fraction': MAX_MISSING_FRACTION}


def drop_incomplete(rows):
    """--preprocess: the rows with at most 10 % of their values missing, and with a target."""
    if isinstance(rows, NumericRows):
        return rows  # none missing
    kept = []
    for number, row in rows:
        missing = sum(_missing(v) for v in row)
        if not _missing(row[0]) and missing <= MAX_MISSING_FRACTION * len(row):
            kept.append((number, row))
    return kept


def check_targets(rows, uri):
    """Without --preprocess every row needs its target."""
    if isinstance(rows, NumericRows):
        return  # none missing
    for number, row in rows:
        if _missing(row[0]):
            raise DataError('{} line {}: the target (first column) is missing'.format(uri, number))


def write_json(path, value):
    with open(path, 'w', encoding='utf-8') as out:
        json.dump(value, out, indent=2, sort_keys=True)
        out.write('\n')
