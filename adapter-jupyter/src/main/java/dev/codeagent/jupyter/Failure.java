package dev.codeagent.jupyter;

import java.util.List;

/** Why a cell failed, for the notebook's error output and the reply; traceback empty: the one line. */
record Failure(String name, String value, List<String> shownTraceback) {
    Failure(String name, String value) {
        this(name, value, List.of());
    }

    List<String> traceback() {
        return shownTraceback.isEmpty() ? List.of(name + ": " + value) : shownTraceback;
    }
}
