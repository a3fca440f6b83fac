package dev.codeagent.domain.solving;

import static dev.codeagent.domain.execution.Language.BASH;
import static dev.codeagent.domain.execution.Language.JAVASCRIPT;
import static dev.codeagent.domain.execution.Language.PYTHON;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CodeExtractorTest {

    private final CodeExtractor extractor = new CodeExtractor();

    private static final String PROGRAM = "def add(a, b):\n    return a + b\n\n\nprint(add(1, 2))";

    @Test
    void takesAFencedBlockTaggedPython() {
        String reply = "Here is the solution:\n\n```python\n" + PROGRAM + "\n```\n\nIt prints 3.";
        assertThat(extractor.extract(reply, PYTHON)).hasValue(PROGRAM);
    }

    @ParameterizedTest
    @ValueSource(strings = {"python", "py", "Python3", "python3.11", "PY", " python ", "python title=\"main.py\"", "{.python}",
            "", "code"})
    void acceptsTheWaysModelsTagPython(String tag) {
        String reply = "Solution:\n```" + tag + "\n" + PROGRAM + "\n```\n";
        assertThat(extractor.extract(reply, PYTHON)).hasValue(PROGRAM);
    }

    @Test
    void keepsIndentationAndInnerBlankLinesAndStripsOnlyTheTrailingNewline() {
        String code = "    \nclass A:\n\tdef f(self):\n\t\treturn 1\n\n\nprint(A().f())  ";
        assertThat(extractor.extract("```python\n" + code + "\n\n```", PYTHON)).hasValue(code);
    }

    @Test
    void prefersTheBlockInTheTaskLanguageOverShellAndOutputBlocks() {
        String reply = "Install nothing, just run:\n```bash\npython3 main.py\necho done\nls -la | grep main\n```\n"
                + "The program:\n```python\n" + PROGRAM + "\n```\nOutput:\n```text\n3\n```\n```console\n$ python3 main.py\n3\n```";
        assertThat(extractor.extract(reply, PYTHON)).hasValue(PROGRAM);
    }

    @Test
    void prefersATaggedBlockOverAnUntaggedOne() {
        String reply = "```\nimport os\nimport sys\nprint(os.getcwd(), sys.argv, 1, 2, 3)\nprint('more lines')\n```\n"
                + "```py\nprint(1)\n```";
        assertThat(extractor.extract(reply, PYTHON)).hasValue("print(1)");
    }

    @Test
    void prefersTheCompleteProgramOverSnippetsAndUsageExamples() {
        String reply = "The bug is on this line:\n```python\n    return a - b\n```\nHere is the fixed version:\n"
                + "```python\n" + PROGRAM + "\n```\nYou can call it like this:\n```python\nresult = add(2, 3)\nprint(result)\n"
                + "print(add(4, 5))\nprint(add(6, 7))\nprint(add(8, 9))\nprint(add(10, 11))\n```";
        assertThat(extractor.extract(reply, PYTHON)).hasValue(PROGRAM);
    }

    @Test
    void prefersTheSolutionOverALongerTestSuite() {
        String tests = "import unittest\nfrom solution import add\n\n\nclass TestAdd(unittest.TestCase):\n"
                + "    def test_small(self):\n        self.assertEqual(add(1, 2), 3)\n\n    def test_zero(self):\n"
                + "        self.assertEqual(add(0, 0), 0)\n\n\nunittest.main()";
        String reply = "```python\n" + PROGRAM + "\n```\nAnd some tests:\n```python\n" + tests + "\n```";
        assertThat(extractor.extract(reply, PYTHON)).hasValue(PROGRAM);
    }

    @Test
    void amongEqualCandidatesTakesTheLongestThenTheLast() {
        String first = "def f(x):\n    return x";
        String second = "def f(x):\n    if x < 0:\n        return -x\n    return x";
        assertThat(extractor.extract("```python\n" + first + "\n```\nBetter:\n```python\n" + second + "\n```", PYTHON))
                .hasValue(second);
        String again = "def f(x):\n    return x + 0";
        assertThat(extractor.extract("```python\n" + first + "\n```\nBetter:\n```python\n" + again + "\n```", PYTHON))
                .hasValue(again);
    }

    @Test
    void takesAnUnclosedFinalFenceOfATruncatedReply() {
        String reply = "Sure.\n```python\ndef f(n):\n    total = 0\n    for i in range(n):\n        total += i";
        assertThat(extractor.extract(reply, PYTHON))
                .hasValue("def f(n):\n    total = 0\n    for i in range(n):\n        total += i");
    }

    @Test
    void takesAClosingFenceGluedToTheLastLine() {
        assertThat(extractor.extract("```python\nx = 1\nprint(x)```\nDone.", PYTHON)).hasValue("x = 1\nprint(x)");
    }

    @Test
    void takesLongerFencesAndTildes() {
        String code = "s = '''\n```\nnot a fence end\n```\n'''\nprint(s)";
        assertThat(extractor.extract("````python\n" + code + "\n````", PYTHON)).hasValue(code);
        assertThat(extractor.extract("~~~python\nprint(1)\n~~~", PYTHON)).hasValue("print(1)");
    }

    @Test
    void removesTheIndentationOfAFenceInAListItem() {
        String reply = "1. Write the function:\n   ```python\n   def f():\n       return 1\n   ```\n2. Done.";
        assertThat(extractor.extract(reply, PYTHON)).hasValue("def f():\n    return 1");
    }

    @Test
    void readsCrlfReplies() {
        assertThat(extractor.extract("Code:\r\n```python\r\nif True:\r\n    print(1)\r\n```\r\n", PYTHON))
                .hasValue("if True:\n    print(1)");
    }

    @Test
    void takesCodeTagsAndUnescapesHtml() {
        String reply = "<p>Here:</p>\n<pre><code class=\"language-python\">def lt(a, b):\n    return a &lt; b and b &gt; 0 "
                + "and a != &quot;x&quot; &amp; True\n\nprint(lt(1, 2))\n</code></pre>";
        assertThat(extractor.extract(reply, PYTHON))
                .hasValue("def lt(a, b):\n    return a < b and b > 0 and a != \"x\" & True\n\nprint(lt(1, 2))");
    }

    @Test
    void ignoresAWordInInlineCodeTags() {
        assertThat(extractor.extract("Use the <code>sorted</code> builtin, not <code>sort</code>.", PYTHON)).isEmpty();
    }

    @Test
    void takesBareCode() {
        assertThat(extractor.extract(PROGRAM + "\n", PYTHON)).hasValue(PROGRAM);
    }

    @Test
    void takesBareCodeBetweenAnIntroductionAndARemark() {
        String reply = "Sure! Here is the solution:\n\n" + PROGRAM + "\n\nThis prints 3, the sum of 1 and 2.";
        assertThat(extractor.extract(reply, PYTHON)).hasValue(PROGRAM);
    }

    @Test
    void bareCodeKeepsDocstringsAndComments() {
        String code = "import sys\n\n\ndef main():\n    \"\"\"Read numbers.\n\n    Sum them up and print the result.\n    \"\"\"\n"
                + "    # numbers come one per line\n    print(sum(int(x) for x in sys.stdin))\n\n\nmain()";
        assertThat(extractor.extract(code, PYTHON)).hasValue(code);
    }

    @Test
    void bareCodeInAMarkdownIndentedBlockIsDedented() {
        String reply = "The program:\n\n    def f():\n        return 2\n\n    print(f())\n";
        assertThat(extractor.extract(reply, PYTHON)).hasValue("def f():\n    return 2\n\nprint(f())");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "I cannot help with that.",
            "I'm sorry, but I can't assist with that request.",
            "The answer is 42.",
            "42",
            "To solve this, sort the list and then return the middle element.\nThat gives the median in O(n log n).",
            "1. Read the input\n2. Sort it\n3. Print the first element",
            "   \n\n  ",
            ">>> add(1, 2)\n3"})
    void refusesProse(String reply) {
        assertThat(extractor.extract(reply, PYTHON)).isEmpty();
    }

    @Test
    void findsNothingWhenOnlyOtherLanguagesAreFenced() {
        assertThat(extractor.extract("Run it with:\n```bash\npython3 main.py\n```\nIt prints:\n```\n```", PYTHON)).isEmpty();
        assertThat(extractor.extract(null, PYTHON)).isEmpty();
    }

    @Test
    void ignoresTheReasoningOfThinkingModels() {
        String reply = "<think>\nMaybe:\n```python\nprint('draft, much longer than the final answer')\nprint(2)\n```\n</think>\n"
                + "```python\nprint(1)\n```";
        assertThat(extractor.extract(reply, PYTHON)).hasValue("print(1)");
    }

    @Test
    void picksTheBlockOfTheTaskLanguageForOtherLanguages() {
        String reply = "```python\nprint(1)\n```\n```js\nconsole.log(1);\n```\n```sh\necho 1\n```";
        assertThat(extractor.extract(reply, JAVASCRIPT)).hasValue("console.log(1);");
        assertThat(extractor.extract(reply, BASH)).hasValue("echo 1");
        assertThat(extractor.extract("const x = 2;\nconsole.log(x * 2);", JAVASCRIPT)).hasValue("const x = 2;\nconsole.log(x * 2);");
        assertThat(extractor.extract("Sorry, I can not write that.", JAVASCRIPT)).isEmpty();
    }

    static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> compiledReplies() {
        return java.util.stream.Stream.of(
                org.junit.jupiter.params.provider.Arguments.of(dev.codeagent.domain.execution.Language.C, "c",
                        "#include <stdio.h>\nint main(void) {\n    printf(\"%d\\n\", 42);\n    return 0;\n}"),
                org.junit.jupiter.params.provider.Arguments.of(dev.codeagent.domain.execution.Language.CPP, "cpp",
                        "#include <iostream>\nint main() {\n    std::cout << 42 << std::endl;\n}"),
                org.junit.jupiter.params.provider.Arguments.of(dev.codeagent.domain.execution.Language.CPP, "c++",
                        "#include <iostream>\nusing namespace std;\nint main() {\n    cout << 42 << endl;\n}"),
                org.junit.jupiter.params.provider.Arguments.of(dev.codeagent.domain.execution.Language.JAVA, "java",
                        "public class Main {\n    public static void main(String[] args) {\n        System.out.println(42);\n    }\n}"),
                org.junit.jupiter.params.provider.Arguments.of(dev.codeagent.domain.execution.Language.GO, "go",
                        "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(42)\n}"),
                org.junit.jupiter.params.provider.Arguments.of(dev.codeagent.domain.execution.Language.RUST, "rust",
                        "fn main() {\n    println!(\"{}\", 42);\n}"));
    }

    /** The compiled languages' replies as models write them: tagged by the usual names, untagged, or unfenced. */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.MethodSource("compiledReplies")
    void takesTheCompiledLanguagesBlocks(dev.codeagent.domain.execution.Language language, String tag, String code) {
        String tagged = "Here it is:\n\n```" + tag + "\n" + code + "\n```\n\nCompile and run it.";
        assertThat(extractor.extract(tagged, language)).hasValue(code);
        String untagged = "Here it is:\n\n```\n" + code + "\n```\nDone.";
        assertThat(extractor.extract(untagged, language)).hasValue(code);
        String bare = "Here it is:\n\n" + code + "\n";
        assertThat(extractor.extract(bare, language)).as("unfenced").hasValue(code);
    }
}
