/*
 * VKL_TLS: the one way the loader declares a thread-local variable.
 *
 * Every thread-local variable of the loader uses the initial-exec model: it lives in the static
 * TLS block glibc reserves at dlopen time, so using it never calls __tls_get_addr and never
 * allocates. With the default (global- or local-dynamic) model the first use on a thread may have
 * to grow that thread's dynamic thread vector, and when that allocation fails glibc ends the
 * process with status 127 ("cannot allocate memory for thread-local data"; LDP_LOADER_2);
 * conformance/loader/oom/ proves this cannot happen, and //loader:tls_model_test checks the built
 * library imports no __tls_get_addr. The loader's TLS is a few hundred bytes, well inside the
 * surplus glibc keeps for dlopen()ed libraries.
 */
#ifndef VKL_INTERNAL_TLS_H
#define VKL_INTERNAL_TLS_H

#define VKL_TLS _Thread_local __attribute__((tls_model("initial-exec")))

#endif
