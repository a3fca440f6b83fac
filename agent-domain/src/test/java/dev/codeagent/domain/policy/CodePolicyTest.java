package dev.codeagent.domain.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Program;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CodePolicyTest {

    private final CodePolicy policy = new CodePolicy(Set.of("socket", "ctypes"), Set.of("os.system", "eval"));

    @Test
    void permissivePolicyAllowsEverything() {
        assertThat(CodePolicy.permissive().check(new Program(Language.PYTHON, "import socket\neval('1')"))).isEmpty();
    }

    @Test
    void findsForbiddenImportsInEveryForm() {
        assertThat(policy.check(py("import os\nimport socket"))).contains("import of forbidden module 'socket' on line 2");
        assertThat(policy.check(py("\n\n  from socket import create_connection"))).hasValueSatisfying(v -> assertThat(v).contains("line 3"));
        assertThat(policy.check(py("import os, ctypes.util as u"))).hasValueSatisfying(v -> assertThat(v).contains("ctypes"));
        assertThat(policy.check(py("m = __import__('socket')"))).isPresent();
        assertThat(policy.check(py("import importlib\nimportlib.import_module(\"ctypes\")"))).isPresent();
    }

    @Test
    void findsForbiddenCallsButNotLookalikes() {
        assertThat(policy.check(py("import os\nos.system('ls')"))).contains("call of forbidden 'os.system' on line 2");
        assertThat(policy.check(py("x = literal_eval('1')\nmy.eval(2)"))).isEmpty();
        assertThat(policy.check(py("print(eval ('1'))"))).isPresent();
    }

    @Test
    void checksExtraPythonFilesToo() {
        Program p = new Program(Language.PYTHON, "import helper", Map.of("helper.py", "import socket"));
        assertThat(policy.check(p)).isPresent();
    }

    @Test
    void checksPythonGivenAsBytesAndRefusesCompiledModules() {
        String source = java.util.Base64.getEncoder().encodeToString("import socket\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertThat(policy.check(new Program(Language.PYTHON, "import helper", Map.of(), null, Map.of("helper.py", source))))
                .hasValueSatisfying(v -> assertThat(v).contains("socket"));
        assertThat(policy.check(new Program(Language.PYTHON, "import helper", Map.of(), null, Map.of("helper.pyc", "AA=="))))
                .hasValueSatisfying(v -> assertThat(v).contains("compiled Python modules cannot be checked"));
        assertThat(policy.check(new Program(Language.PYTHON, "print(1)", Map.of(), null, Map.of("data.bin", "AA==")))).isEmpty();
    }

    @Test
    void leavesOtherLanguagesToTheSandbox() {
        assertThat(policy.check(new Program(Language.BASH, "import socket"))).isEmpty();
    }

    private static Program py(String source) {
        return new Program(Language.PYTHON, source);
    }
}
