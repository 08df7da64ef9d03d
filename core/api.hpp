// MO_API marks what libmo exports: the public plugin API and the entry points of mo's own
// tools. Everything else is hidden, so a plugin cannot come to depend on it.
#pragma once

#define MO_API __attribute__((visibility("default")))
