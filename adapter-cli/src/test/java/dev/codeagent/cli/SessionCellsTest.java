package dev.codeagent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SessionCellsTest {

    @Test
    void splitsThePercentFormatDroppingBlankCells() {
        assertThat(SessionCommand.split("import os\n\n# %%\nx = 1\n# %% [markdown-ish title]\n\n\ny = 2\n\n#%%\n# %%\n"))
                .containsExactly("import os", "x = 1", "y = 2");
        assertThat(SessionCommand.split("print(1)")).containsExactly("print(1)");
        assertThat(SessionCommand.split("# a comment, not a marker\nprint(1)\n")).containsExactly("# a comment, not a marker\nprint(1)");
    }
}
