package dev.codeagent.cli;

import java.util.Map;

/** Signal numbers (Linux, x86-64 and arm64) in the words a user looks up: {@code SIGSEGV (signal 11: segmentation fault)}. */
final class Signals {

    private static final Map<Integer, String[]> NAMES = Map.ofEntries(
            Map.entry(1, new String[] {"SIGHUP", "hangup"}),
            Map.entry(2, new String[] {"SIGINT", "interrupt"}),
            Map.entry(3, new String[] {"SIGQUIT", "quit"}),
            Map.entry(4, new String[] {"SIGILL", "illegal instruction"}),
            Map.entry(5, new String[] {"SIGTRAP", "trace trap"}),
            Map.entry(6, new String[] {"SIGABRT", "aborted, e.g. by abort() or a failed assert()"}),
            Map.entry(7, new String[] {"SIGBUS", "bus error"}),
            Map.entry(8, new String[] {"SIGFPE", "arithmetic error, e.g. integer division by zero"}),
            Map.entry(9, new String[] {"SIGKILL", "killed"}),
            Map.entry(11, new String[] {"SIGSEGV", "segmentation fault: an invalid memory access"}),
            Map.entry(13, new String[] {"SIGPIPE", "broken pipe"}),
            Map.entry(14, new String[] {"SIGALRM", "alarm clock"}),
            Map.entry(15, new String[] {"SIGTERM", "terminated"}),
            Map.entry(24, new String[] {"SIGXCPU", "CPU time limit"}),
            Map.entry(25, new String[] {"SIGXFSZ", "file size limit"}),
            Map.entry(31, new String[] {"SIGSYS", "a system call the sandbox forbids"}));

    private Signals() {
    }

    static String describe(int signal) {
        String[] n = NAMES.get(signal);
        return n == null ? "signal " + signal : n[0] + " (signal " + signal + ": " + n[1] + ")";
    }
}
