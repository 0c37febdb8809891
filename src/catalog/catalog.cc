#include "catalog/catalog.h"
