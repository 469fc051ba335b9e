/* core/stack: shared by stack.c and stack-advise.c; not an interface. */
#ifndef PA_CORE_STACK_IMPL_H
#define PA_CORE_STACK_IMPL_H

#include "core/stack.h"

/* the name of device @i of @s, "?" when it has none */
const char *stack_dev_name(const struct pa_stack *s, unsigned int i);
/* "partition", "md array", ... */
const char *stack_kind_word(enum pa_stack_kind k);
/* append a formatted clause to the reason in @buf, "; " between clauses */
void stack_reason_add(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
