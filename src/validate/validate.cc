#include "validate/validate.h"
