package dev.codeagent.domain.solving;

import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.LanguageProfile;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Takes the program out of a model's reply, tolerating what real models write.
 *
 * <p>In order of preference:
 * <ol>
 *   <li>Fenced blocks ({@code ```} or {@code ~~~}, with or without a language tag, indented in a list,
 *       closed at the end of the last code line, or left unclosed when the reply was cut off). Blocks
 *       tagged with the task's language ({@code python}, {@code py}, {@code Python3}…) win over untagged
 *       ones; blocks tagged with anything else ({@code bash}, {@code console}, {@code text},
 *       {@code output}…) are ignored. Among the rest, a block that looks like code beats one that does
 *       not, a complete program (definitions, imports) that is not a test suite beats a fragment, then
 *       the longer block wins, then the later one.</li>
 *   <li>{@code <code>…</code>} elements, HTML entities unescaped.</li>
 *   <li>Bare code: the reply without fences, when it reads as code; the span from the first to the last
 *       code line is taken (dropping an introduction and a closing remark), and an indentation shared
 *       by all its lines (a Markdown indented block) is removed. Prose is refused.</li>
 * </ol>
 * {@code <think>…</think>} sections of reasoning models are ignored. Indentation inside the code is
 * kept as written (CRLF line ends become LF); trailing blank lines are dropped. Stateless and thread-safe.
 */
public final class CodeExtractor {

    private static final Pattern THINK = Pattern.compile("(?is)<think>.*?</think>");
    private static final Pattern OPEN_FENCE = Pattern.compile("^( *)(`{3,}|~{3,})(.*)$");
    private static final Pattern CODE_TAG = Pattern.compile("(?is)<code(\\s[^>]*)?>(.*?)(?:</code>|\\z)");
    private static final Pattern CLASS_LANGUAGE = Pattern.compile("(?i)(?:language|lang)-([\\w+#.-]+)");
    private static final Set<String> NEUTRAL_TAGS = Set.of("", "code", "source", "src", "program", "solution");

    private static final int MAX_CLASSIFIED = 300;

    private enum Kind { BLANK, PROSE, WEAK, STRONG }

    /** The code in {@code reply} for a task in {@code language}, or empty when it holds none. */
    public Optional<String> extract(String reply, Language language) {
        Objects.requireNonNull(language, "language");
        if (reply == null || reply.isBlank()) {
            return Optional.empty();
        }
        String text = THINK.matcher(reply).replaceAll("");
        List<String> lines = List.of(text.split("\\r?\\n", -1));

        List<String> outside = new ArrayList<>();
        List<Candidate> candidates = new ArrayList<>();
        parseFences(lines, language, outside, candidates);
        Optional<String> best = best(candidates, language);
        if (best.isPresent()) {
            return best;
        }

        String rest = String.join("\n", outside);
        best = best(codeTags(rest, language), language);
        if (best.isPresent()) {
            return best;
        }
        return bareCode(CODE_TAG.matcher(rest).replaceAll(""), language);
    }

    /** Splits the reply into fenced blocks worth considering and the text outside any fence. */
    private static void parseFences(List<String> lines, Language language, List<String> outside, List<Candidate> out) {
        int i = 0;
        int index = 0;
        while (i < lines.size()) {
            Matcher open = OPEN_FENCE.matcher(lines.get(i));
            if (!open.matches() || (open.group(2).charAt(0) == '`' && open.group(3).contains("`"))) {
                outside.add(lines.get(i));
                i++;
                continue;
            }
            int indent = open.group(1).length();
            String fence = open.group(2);
            String tag = normaliseTag(open.group(3));
            List<String> content = new ArrayList<>();
            i++;
            while (i < lines.size()) {
                String l = lines.get(i);
                String stripped = l.strip();
                if (stripped.length() >= fence.length() && stripped.chars().allMatch(c -> c == fence.charAt(0))) {
                    i++;
                    break;
                }
                // "    return x```": the closing fence glued to the last line
                String trimmed = l.stripTrailing();
                if (fence.charAt(0) == '`' && trimmed.endsWith(fence)
                        && !trimmed.endsWith("`" + fence) && trimmed.length() > fence.length()) {
                    content.add(unindent(trimmed.substring(0, trimmed.length() - fence.length()), indent));
                    i++;
                    break;
                }
                content.add(unindent(l, indent));
                i++;
            }
            int rank = tagRank(tag, language);
            if (rank > 0) {
                out.add(new Candidate(String.join("\n", content), rank, index));
            }
            index++;
        }
    }

    private static List<Candidate> codeTags(String text, Language language) {
        List<Candidate> out = new ArrayList<>();
        Matcher m = CODE_TAG.matcher(text);
        int index = 0;
        while (m.find()) {
            String attrs = m.group(1) == null ? "" : m.group(1);
            Matcher lang = CLASS_LANGUAGE.matcher(attrs);
            String tag = lang.find() ? normaliseTag(lang.group(1)) : "";
            String content = unescapeHtml(m.group(2));
            if (content.startsWith("\n")) {
                content = content.substring(1);
            }
            int rank = tagRank(tag, language);
            // an inline <code>name</code> in prose is not a program
            if (rank > 0 && (content.strip().contains("\n") || looksLikeCode(content, language))) {
                out.add(new Candidate(content, rank, index));
            }
            index++;
        }
        return out;
    }

    private static Optional<String> best(List<Candidate> candidates, Language language) {
        return candidates.stream()
                .map(c -> c.withCode(trimTrailing(c.code)))
                .filter(c -> !c.code.isBlank())
                .max(Comparator.<Candidate>comparingInt(c -> c.rank)
                        .thenComparing(c -> looksLikeCode(c.code, language))
                        .thenComparing(c -> complete(c.code, language) && !testSuite(c.code, language))
                        .thenComparing(c -> complete(c.code, language))
                        .thenComparingLong(c -> c.code.lines().filter(l -> !l.isBlank()).count())
                        .thenComparingInt(c -> c.index))
                .map(c -> c.code);
    }

    private static Optional<String> bareCode(String text, Language language) {
        List<String> lines = List.of(text.split("\\r?\\n", -1));
        Kind[] kinds = classify(lines, language);
        int first = -1;
        int last = -1;
        for (int i = 0; i < kinds.length; i++) {
            if (kinds[i] == Kind.WEAK || kinds[i] == Kind.STRONG) {
                if (first < 0) {
                    first = i;
                }
                last = i;
            }
        }
        if (first < 0) {
            return Optional.empty();
        }
        int strong = 0;
        int prose = 0;
        int nonBlank = 0;
        for (int i = first; i <= last; i++) {
            if (kinds[i] != Kind.BLANK) {
                nonBlank++;
            }
            if (kinds[i] == Kind.STRONG) {
                strong++;
            } else if (kinds[i] == Kind.PROSE) {
                prose++;
            }
        }
        if (strong == 0 || prose * 5 > nonBlank) {
            return Optional.empty();
        }
        String code = trimTrailing(String.join("\n", dedent(lines.subList(first, last + 1))));
        return code.isBlank() ? Optional.empty() : Optional.of(code);
    }

    /** Whether the text, taken whole, reads as code: some line is unmistakably code and prose is rare. */
    private static boolean looksLikeCode(String text, Language language) {
        Kind[] kinds = classify(List.of(text.split("\\r?\\n", -1)), language);
        int strong = 0;
        int prose = 0;
        int nonBlank = 0;
        for (Kind k : kinds) {
            if (k != Kind.BLANK) {
                nonBlank++;
            }
            if (k == Kind.STRONG) {
                strong++;
            } else if (k == Kind.PROSE) {
                prose++;
            }
        }
        return strong > 0 && prose * 5 <= nonBlank;
    }

    private static Kind[] classify(List<String> lines, Language language) {
        Kind[] kinds = new Kind[lines.size()];
        String openString = null;
        boolean previousCode = false;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (openString != null) {
                kinds[i] = Kind.WEAK;
                if (count(line, openString) % 2 == 1) {
                    openString = null;
                }
                previousCode = true;
                continue;
            }
            if (line.isBlank()) {
                kinds[i] = Kind.BLANK;
                continue;
            }
            String s = line.strip();
            // a prefix tells code from prose as well as the whole line, and keeps regex work bounded
            Kind k = kindOf(s.length() > MAX_CLASSIFIED ? s.substring(0, MAX_CLASSIFIED) : s, language);
            if (k == Kind.PROSE && previousCode && Character.isWhitespace(line.charAt(0))) {
                // the body of a block the previous code line opened
                k = Kind.WEAK;
            }
            kinds[i] = k;
            previousCode = k != Kind.PROSE;
            if (previousCode) {
                for (String q : LanguageProfile.of(language).shape().multilineQuotes()) {
                    if (count(line, q) % 2 == 1) {
                        openString = q;
                        break;
                    }
                }
            }
        }
        return kinds;
    }

    private static Kind kindOf(String s, Language language) {
        LanguageProfile.CodeShape shape = LanguageProfile.of(language).shape();
        if (shape.promptPrefix() != null && s.startsWith(shape.promptPrefix())) {
            // an interactive session shown as an example, not the program
            return Kind.PROSE;
        }
        return shape.strongLine().matcher(s).matches() ? Kind.STRONG
                : shape.weakLine().matcher(s).matches() ? Kind.WEAK : Kind.PROSE;
    }

    private static boolean complete(String code, Language language) {
        Pattern complete = LanguageProfile.of(language).shape().completeProgram();
        return complete == null || complete.matcher(code).find();
    }

    private static boolean testSuite(String code, Language language) {
        Pattern tests = LanguageProfile.of(language).shape().testSuite();
        return tests != null && tests.matcher(code).find();
    }

    /** 2 for a tag naming the task's language, 1 for no tag (or a neutral one), 0 for another language. */
    private static int tagRank(String tag, Language language) {
        if (NEUTRAL_TAGS.contains(tag)) {
            return 1;
        }
        return LanguageProfile.of(language).namedBy(tag) ? 2 : 0;
    }

    /** The first word of an info string, lower case: {@code "Python3 title=x"} → {@code python3}, {@code {.py}} → {@code py}. */
    private static String normaliseTag(String info) {
        String s = info.strip().toLowerCase(Locale.ROOT);
        if (s.startsWith("{")) {
            s = s.substring(1).strip();
        }
        while (s.startsWith(".")) {
            s = s.substring(1);
        }
        int end = 0;
        while (end < s.length() && (Character.isLetterOrDigit(s.charAt(end)) || "+#._-".indexOf(s.charAt(end)) >= 0)) {
            end++;
        }
        return s.substring(0, end);
    }

    /** Removes up to {@code n} leading spaces, as Markdown does for the content of an indented fence. */
    private static String unindent(String line, int n) {
        int k = 0;
        while (k < n && k < line.length() && line.charAt(k) == ' ') {
            k++;
        }
        return line.substring(k);
    }

    /** Removes leading whitespace common to every non-blank line. */
    private static List<String> dedent(List<String> lines) {
        String common = null;
        for (String l : lines) {
            if (l.isBlank()) {
                continue;
            }
            int k = 0;
            while (k < l.length() && (l.charAt(k) == ' ' || l.charAt(k) == '\t')) {
                k++;
            }
            String prefix = l.substring(0, k);
            if (common == null) {
                common = prefix;
            } else {
                int j = 0;
                while (j < common.length() && j < prefix.length() && common.charAt(j) == prefix.charAt(j)) {
                    j++;
                }
                common = common.substring(0, j);
            }
        }
        if (common == null || common.isEmpty()) {
            return lines;
        }
        List<String> out = new ArrayList<>(lines.size());
        for (String l : lines) {
            out.add(l.startsWith(common) ? l.substring(common.length()) : l.stripLeading());
        }
        return out;
    }

    /** Drops trailing blank lines and the final line break; leaves everything else as written. */
    private static String trimTrailing(String code) {
        List<String> lines = new ArrayList<>(List.of(code.split("\\r?\\n", -1)));
        while (!lines.isEmpty() && lines.get(lines.size() - 1).isBlank()) {
            lines.remove(lines.size() - 1);
        }
        return String.join("\n", lines);
    }

    private static String unescapeHtml(String s) {
        return s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'")
                .replace("&#x27;", "'").replace("&apos;", "'").replace("&nbsp;", " ").replace("&amp;", "&");
    }

    private static int count(String s, String needle) {
        int n = 0;
        for (int i = s.indexOf(needle); i >= 0; i = s.indexOf(needle, i + needle.length())) {
            n++;
        }
        return n;
    }

    private static final class Candidate {
        final String code;
        final int rank;
        final int index;

        Candidate(String code, int rank, int index) {
            this.code = code;
            this.rank = rank;
            this.index = index;
        }

        Candidate withCode(String c) {
            return new Candidate(c, rank, index);
        }
    }
}
