package dev.codeagent.domain.execution;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Everything the agent knows about one {@link Language}, in one place: how a model is asked for it and how
 * its code is found in a reply, how a task's tests are appended to it, how its runtime reports a failure,
 * and whether it is compiled. {@code CodeExtractor}, {@code Judge}, {@code ChatPrompt} and both sandbox tiers read
 * the profile instead of switching on the language. How a sandbox starts a language (an interpreter's command and
 * flags, a toolchain's command lines) is not language knowledge: it is the application's ({@code Toolchains}).
 *
 * <p>Adding an interpreted language: a {@link Language} constant (id, extension), its profile in {@link #of}, its
 * interpreter in the application's {@code Toolchains}, and an entry in each sandbox's interpreter table (the process
 * tier's {@code Interpreters}: config key and binary candidates; the docker image's interpreter and its
 * {@code dev.codeagent.languages} label). A compiled one: the constant, its profile marked {@code compiled}, and its
 * toolchain in {@code Toolchains}.
 *
 * @param language the language
 * @param displayName how prose names it ({@code "Python"})
 * @param runsAs how the prompt says the program is run ({@code "a Python 3 script"})
 * @param fenceTags code-fence or class tags, besides the {@link Language#fromId ids}, that name the language
 * @param shape how its code looks, to find code in a reply
 * @param tracebacks how a failure is reported on stderr
 * @param outOfMemory what its runtime prints on stderr when memory runs out (matched against the last part)
 * @param compiled whether programs in this language are compiled before they run (by the application's
 *     {@code CompilingSandbox}); false for a language that runs from source (its interpreter runs the main file)
 */
public record LanguageProfile(
        Language language,
        String displayName,
        String runsAs,
        Pattern fenceTags,
        CodeShape shape,
        Tracebacks tracebacks,
        Pattern outOfMemory,
        boolean compiled) {

    /**
     * What the prompt promises about a task's tests; the judge keeps the promise (its tests run in a process of
     * their own that calls the functions the code defines, and values cross as data).
     */
    public static final String TESTS_PROMISE = "When the task has tests, your code is run first and the tests then call "
            + "what it defined, from a separate process: define at top level everything they use, return plain values "
            + "(numbers, strings, lists, tuples, dicts, sets), and do not read input or run your own examples at top level.";

    /** How the prompt introduces a task's tests. */
    public static final String TESTS_HEADING = "These tests will be run against your code and must pass:";

    private static final Pattern JAVA_PUBLIC_CLASS = Pattern.compile(
            "(?m)^\\s*public\\s+(?:final\\s+|abstract\\s+)*(?:class|interface|enum|record)\\s+([A-Za-z_$][\\w$]*)");
    private static final Pattern JAVA_MAIN_CLASS = Pattern.compile(
            "(?s)(?:class|interface|enum|record)\\s+([A-Za-z_$][\\w$]*)(?:(?!\\b(?:class|interface|enum|record)\\s).)*?"
                    + "\\bstatic\\s+(?:final\\s+)?void\\s+main\\s*\\(");

    private static final Pattern JAVA_PACKAGE = Pattern.compile("(?m)^\\s*package\\s+([\\w.]+)\\s*;");

    /**
     * The class a Java program starts from, with its package ({@code demo.App}): its public top-level class (javac
     * wants it in a file of that name), else the first class that declares {@code static void main}, else
     * {@code Main}. Null for other languages.
     */
    public String mainClass(String source) {
        if (language != Language.JAVA) {
            return null;
        }
        Matcher pkg = JAVA_PACKAGE.matcher(source);
        String prefix = pkg.find() ? pkg.group(1) + "." : "";
        Matcher pub = JAVA_PUBLIC_CLASS.matcher(source);
        if (pub.find()) {
            return prefix + pub.group(1);
        }
        Matcher main = JAVA_MAIN_CLASS.matcher(source);
        return prefix + (main.find() ? main.group(1) : "Main");
    }

    /** How a runtime reports the error that ended a program. */
    public enum Tracebacks {
        /** Python's {@code Traceback (most recent call last):} with frames and a last {@code Type: message} line. */
        PYTHON,
        /** Nothing the judge reads: the exit status, the signal and the last stderr line. */
        NONE
    }

    /**
     * How code in a language looks, line by line, so that it can be told from prose.
     *
     * @param strongLine a line that is unmistakably code
     * @param weakLine a line that may be code (a comment, a closing bracket)
     * @param completeProgram code that is a whole program, not a fragment; null: any code is
     * @param testSuite code that is a test suite rather than the solution; null: never
     * @param promptPrefix a line starting with this is an interactive session, i.e. prose; null: none
     * @param multilineQuotes quotes that open a string spanning lines (its lines are code)
     */
    public record CodeShape(Pattern strongLine, Pattern weakLine, Pattern completeProgram, Pattern testSuite,
            String promptPrefix, List<String> multilineQuotes) {

        public CodeShape {
            Objects.requireNonNull(strongLine, "strongLine");
            Objects.requireNonNull(weakLine, "weakLine");
            multilineQuotes = List.copyOf(multilineQuotes);
        }
    }

    public LanguageProfile {
        Objects.requireNonNull(language, "language");
        Objects.requireNonNull(displayName, "displayName");
        Objects.requireNonNull(runsAs, "runsAs");
        Objects.requireNonNull(fenceTags, "fenceTags");
        Objects.requireNonNull(shape, "shape");
        Objects.requireNonNull(tracebacks, "tracebacks");
        Objects.requireNonNull(outOfMemory, "outOfMemory");
    }

    /** The profile of a language. */
    public static LanguageProfile of(Language language) {
        return PROFILES.get(Objects.requireNonNull(language, "language"));
    }

    /** Whether a code-fence or class tag (normalised: lower case, first word) names this language. */
    public boolean namedBy(String tag) {
        return Language.fromId(tag).filter(l -> l == language).isPresent() || fenceTags.matcher(tag).matches();
    }

    /** The fence tag the prompt asks for ({@code python}). */
    public String fenceTag() {
        return language.id();
    }

    /** Whether the end of a failed program's stderr says its runtime ran out of memory. */
    public boolean saysOutOfMemory(String stderrTail) {
        return outOfMemory.matcher(stderrTail).find();
    }

    private static Map<Language, LanguageProfile> profiles() {
        Map<Language, LanguageProfile> m = new EnumMap<>(Language.class);
        m.put(Language.PYTHON, new LanguageProfile(Language.PYTHON, "Python", "a Python 3 script",
                Pattern.compile("python[\\d.]*|py\\d?"),
                new CodeShape(
                        Pattern.compile("^(?:(?:async\\s+)?def\\s+\\w+\\s*\\(.*"
                                + "|class\\s+\\w+.*:\\s*(?:#.*)?"
                                + "|import\\s+[\\w.]+(?:\\s+as\\s+\\w+)?(?:\\s*,\\s*[\\w.]+(?:\\s+as\\s+\\w+)?)*\\s*(?:#.*)?"
                                + "|from\\s+[\\w.]+\\s+import\\s+.+"
                                + "|(?:if|elif|while|for|with|async\\s+for|async\\s+with|except)\\b.*:\\s*(?:#.*)?"
                                + "|(?:else|try|finally)\\s*:\\s*(?:#.*)?"
                                + "|(?:return|raise|yield|assert|del|global|nonlocal)\\b.*"
                                + "|(?:pass|break|continue)\\s*(?:#.*)?"
                                + "|@[\\w.]+.*"
                                + "|print\\s*\\(.*"
                                + "|[A-Za-z_][\\w.]*(?:\\[[^\\]]*\\])?(?:\\s*,\\s*[A-Za-z_][\\w.]*)*\\s*(?:[-+*/%&|^@]|//|\\*\\*|>>|<<)?=(?!=)\\s*\\S.*"
                                + "|[A-Za-z_][\\w.]*\\(.*\\)\\s*(?:#.*)?)$"),
                        Pattern.compile("^(?:#.*|[)\\]}]+[,:)\\]}]*\\s*|.*[(\\[{,\\\\]\\s*|[A-Za-z_][\\w.]*\\s*:\\s*[\\w.\\[\\], |]+=.*"
                                + "|[\"'].*[\"'],?)$"),
                        Pattern.compile("(?m)^(?:def |class |async def |import |from \\S+ import |if __name__)"),
                        Pattern.compile("(?m)^(?:import (?:unittest|pytest)|from (?:unittest|pytest)|def test_|class Test\\w*\\(|"
                                + "from (?:solution|main|\\w+_solution) import )"),
                        ">>>", List.of("\"\"\"", "'''")),
                Tracebacks.PYTHON,
                // the exception that ended it stands at the start of a line; a bare "MemoryError" when even the
                // traceback could not be allocated
                Pattern.compile("(?m)^(\\w+\\.)*MemoryError\\b|Fatal Python error: .*memory"), false));
        m.put(Language.JAVASCRIPT, new LanguageProfile(Language.JAVASCRIPT, "JavaScript", "a Node.js script (CommonJS)",
                Pattern.compile("mjs|cjs|ecmascript|javascript[\\d.]*|node[\\d.]*"),
                new CodeShape(
                        Pattern.compile("^(?:(?:function|const|let|var|class|import|export|return|if|for|while|switch|try|throw"
                                + "|async\\s+function)\\b.*"
                                + "|console\\.\\w+\\(.*|[\\w.$\\[\\]]+\\s*(?:[-+*/%]|\\|\\||&&|\\?\\?)?=(?!=).*"
                                + "|[\\w.$]+\\(.*\\);?|.*;)$"),
                        Pattern.compile("^(?://.*|/\\*.*|\\*.*|[)\\]}]+.*|.*[{(\\[,]\\s*)$"),
                        Pattern.compile("(?m)^(?:function |async function |const |let |var |class |import |export |module\\.exports)"),
                        Pattern.compile("(?m)^(?:describe\\(|test\\(|it\\(|const assert = require|import assert)"),
                        null, List.of()),
                Tracebacks.NONE,
                // V8 prints its heap failure and then a native stack: not the last line
                Pattern.compile("JavaScript heap out of memory|Fatal process out of memory|Fatal process OOM"), false));
        m.put(Language.BASH, new LanguageProfile(Language.BASH, "Bash", "a Bash script",
                Pattern.compile("shell|shellscript|zsh|bash[\\d.]*"),
                new CodeShape(
                        Pattern.compile("^(?:#!.*|(?:echo|printf|if|then|elif|else|fi|for|do|done|while|until|case|esac|export"
                                + "|local|read|cd|set|function|return|exit|shift|declare|test)\\b.*|[A-Za-z_]\\w*=.*"
                                + "|[A-Za-z_]\\w*\\s*\\(\\)\\s*\\{?.*|.*\\|\\s*\\w+.*|\\[\\[? .*)$"),
                        Pattern.compile("^(?:#.*|[})]+.*|;;.*)$"),
                        null, null, null, List.of()),
                Tracebacks.NONE,
                Pattern.compile("xmalloc: cannot allocate"), false));
        compiledProfiles(m);
        for (Language l : Language.values()) {
            if (!m.containsKey(l)) {
                throw new IllegalStateException("no LanguageProfile for " + l);
            }
        }
        return m;
    }

    /** Statements of the C family: what ends in a semicolon, opens a block, or starts with a keyword. */
    private static final String C_FAMILY_LINE = "(?:return|if|for|while|switch|case|default|else|do|typedef|break|continue|goto)\\b.*"
            + "|[\\w.\\->\\[\\]*&]+\\s*(?:[-+*/%&|^]|<<|>>)?=(?!=).*;\\s*(?://.*)?"
            + "|[\\w:.<>]+\\s*\\(.*\\)\\s*;\\s*(?://.*)?"
            + "|.*;\\s*(?://.*)?";
    private static final String C_DECLARATION = "(?:(?:static|const|unsigned|signed|struct|enum|long|short|inline|extern|"
            + "volatile|register)\\s+)*(?:int|void|char|long|short|double|float|size_t|bool|unsigned|struct\\s+\\w+|"
            + "[A-Za-z_]\\w*_t)\\b[\\s*]+\\w+\\s*(?:\\(.*|\\[.*|=.*|;.*|,.*)";
    private static final Pattern C_FAMILY_WEAK = Pattern.compile("^(?://.*|/\\*.*|\\*.*|[)\\]}]+.*|.*[{(\\[,]\\s*)$");

    /** The compiled languages: how their code looks; how they are built is the application's ({@code Toolchains}). */
    private static void compiledProfiles(Map<Language, LanguageProfile> m) {
        Pattern cMain = Pattern.compile("(?m)^\\s*(?:int|void)\\s+main\\s*\\(");
        m.put(Language.C, new LanguageProfile(Language.C, "C", "a C17 program (GNU dialect, compiled with gcc -O2 -lm)",
                Pattern.compile("h|c\\d*|gnuc"),
                new CodeShape(Pattern.compile("^(?:#\\s*(?:include|define|if|ifdef|ifndef|endif|pragma|undef)\\b.*|"
                        + C_DECLARATION + "|" + C_FAMILY_LINE + ")$"), C_FAMILY_WEAK, cMain, null, null, List.of()),
                Tracebacks.NONE, Pattern.compile("(?i)cannot allocate memory|out of memory"), true));
        m.put(Language.CPP, new LanguageProfile(Language.CPP, "C++", "a C++17 program (GNU dialect, compiled with g++ -O2)",
                Pattern.compile("cc|cxx|hpp|hh|c\\+\\+\\d*|cpp\\d*"),
                new CodeShape(Pattern.compile("^(?:#\\s*(?:include|define|if|ifdef|ifndef|endif|pragma|undef)\\b.*|"
                        + "(?:using|namespace|template|class|struct|public:|private:|protected:)\\b.*|std::.*|"
                        + C_DECLARATION + "|" + C_FAMILY_LINE + ")$"), C_FAMILY_WEAK, cMain, null, null, List.of()),
                Tracebacks.NONE, Pattern.compile("std::bad_alloc|(?i)cannot allocate memory|out of memory"), true));
        m.put(Language.JAVA, new LanguageProfile(Language.JAVA, "Java", "a Java 17 program (javac, then java with the "
                + "class that declares main; a public class named as you like)",
                Pattern.compile("java\\d*|jdk"),
                new CodeShape(Pattern.compile("^(?:(?:public|private|protected|static|final|abstract|sealed)\\s+.*|"
                        + "(?:class|interface|enum|record|import|package)\\s+.*|(?:try|catch|throw|new)\\b.*|System\\.\\w+.*|@\\w+.*|"
                        + C_FAMILY_LINE + ")$"), C_FAMILY_WEAK,
                        Pattern.compile("(?m)^\\s*(?:public\\s+)?(?:final\\s+)?class\\s+\\w+"),
                        Pattern.compile("(?m)^import (?:static )?org\\.junit"), null, List.of("\"\"\"")),
                Tracebacks.NONE, Pattern.compile("java\\.lang\\.OutOfMemoryError|Could not reserve enough space"), true));
        m.put(Language.GO, new LanguageProfile(Language.GO, "Go", "a Go program (package main, built with go build)",
                Pattern.compile("golang|go\\d[\\d.]*"),
                new CodeShape(Pattern.compile("^(?:package\\s+\\w+|import\\s*(?:\\(|\".*\")|func\\s+.*|"
                        + "(?:var|const|type|return|if|for|switch|case|default|go|defer|select|else)\\b.*|"
                        + "[\\w.]+(?:\\s*,\\s*[\\w.]+)*\\s*(?::=|(?:[-+*/%&|^]|<<|>>)?=(?!=)).*|[\\w.]+\\(.*\\)|\"[\\w./-]+\")$"),
                        Pattern.compile("^(?://.*|/\\*.*|\\*.*|[)\\]}]+.*|.*[{(\\[,]\\s*)$"),
                        Pattern.compile("(?m)^package main\\b|^func main\\(\\)"),
                        Pattern.compile("(?m)^func Test\\w*\\(\\w+ \\*testing\\.T\\)"), null, List.of("`")),
                Tracebacks.NONE, Pattern.compile("fatal error: runtime: out of memory|cannot allocate memory"), true));
        m.put(Language.RUST, new LanguageProfile(Language.RUST, "Rust", "a Rust program (one crate, edition 2021, "
                + "rustc -O; the standard library only)", Pattern.compile("rs|rust\\d*"),
                new CodeShape(Pattern.compile("^(?:(?:pub(?:\\([\\w ]+\\))?\\s+)?(?:fn|struct|enum|impl|trait|mod|use|const|static|"
                        + "type|unsafe|async)\\b.*|let\\s+.*|(?:return|if|for|while|loop|match|else)\\b.*|"
                        + "(?:println|print|eprintln|eprint|vec|assert|assert_eq|assert_ne|panic|write|writeln)!.*|#!?\\[.*|.*;)$"),
                        C_FAMILY_WEAK, Pattern.compile("(?m)^\\s*(?:pub\\s+)?fn\\s+main\\s*\\("),
                        Pattern.compile("(?m)^\\s*#\\[(?:cfg\\(test\\)|test)\\]"), null, List.of()),
                Tracebacks.NONE, Pattern.compile("memory allocation of \\d+ bytes failed|out of memory"), true));
    }

    // last: the profiles are built from the patterns above
    private static final Map<Language, LanguageProfile> PROFILES = profiles();
}
