// A "loader" that crashes while it is being loaded (its constructor raises SIGSEGV): run_report_test
// proves such a loader fails cells and the report is still written, instead of losing the run.
#include <signal.h>

__attribute__((constructor)) static void crash_on_load(void) { raise(SIGSEGV); }

__attribute__((used)) static int vkGetInstanceProcAddr(void) { return 0; }
