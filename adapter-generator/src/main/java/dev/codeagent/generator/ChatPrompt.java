package dev.codeagent.generator;

import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.LanguageProfile;
import dev.codeagent.domain.solving.Judge;
import dev.codeagent.domain.solving.GenerationRequest;
import dev.codeagent.domain.solving.Task;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The conversation a chat model sees for a {@link GenerationRequest}: a system prompt, the task as the
 * first user message, then for every failed attempt the model's own reply (assistant) and the feedback
 * on it (user), oldest first.
 */
final class ChatPrompt {

    /** Stdin and expected output longer than this are cut in the prompt, not in the judging. */
    static final int MAX_QUOTED_CHARS = 8_000;

    /** One chat message as the wire format has it. */
    record Message(String role, String content) {
        Message {
            Objects.requireNonNull(role, "role");
            Objects.requireNonNull(content, "content");
        }
    }

    private ChatPrompt() {
    }

    static List<Message> messages(GenerationRequest request) {
        Task task = request.task();
        List<Message> messages = new ArrayList<>();
        messages.add(new Message("system", systemPrompt(task.language())));
        messages.add(new Message("user", taskMessage(task)));
        for (GenerationRequest.Turn turn : request.history()) {
            // some servers reject an empty assistant message; the model should still see it said nothing
            String reply = turn.reply().isBlank() ? "(empty reply)" : turn.reply();
            messages.add(new Message("assistant", reply));
            messages.add(new Message("user", turn.feedback()));
        }
        return messages;
    }

    static String systemPrompt(Language language) {
        LanguageProfile profile = LanguageProfile.of(language);
        String name = profile.displayName();
        String fence = "```" + profile.fenceTag();
        return "You are an expert " + name + " programmer. You write correct, complete, runnable programs.\n"
                + "Reply with the complete program in ONE fenced code block (" + fence + " ... ```). "
                + "No explanation is needed; any prose outside the code block is ignored.\n"
                + "Your code is saved to a file and run as " + profile.runsAs() + " with no arguments and no network access. "
                + "Use only the standard library: no third-party packages are installed.\n"
                // the promise the Judge keeps; other languages cannot have tests
                + (Judge.judgesTests(language) ? LanguageProfile.TESTS_PROMISE + "\n" : "")
                + "When the task gives an expected output, what your program prints must match it exactly.\n"
                + "When told that an attempt failed, find the cause in the feedback and reply with the whole corrected "
                + "program, again in one code block.";
    }

    static String taskMessage(Task task) {
        LanguageProfile profile = LanguageProfile.of(task.language());
        StringBuilder b = new StringBuilder();
        b.append("Task (").append(profile.displayName()).append("):\n").append(task.prompt().strip()).append('\n');
        if (task.hasTests()) {
            b.append("\n").append(LanguageProfile.TESTS_HEADING).append("\n")
                    .append(fenced(task.tests(), profile.fenceTag()));
        }
        if (task.hasExpectedOutput()) {
            b.append("\nThe program must print exactly this (trailing whitespace on a line is ignored):\n")
                    .append(fenced(cut(task.expectedOutput()), "text"));
        }
        if (!task.stdin().isEmpty()) {
            b.append("\nThe program reads this from standard input:\n").append(fenced(cut(task.stdin()), "text"));
        }
        b.append("\nReply with the complete program in one ").append(profile.fenceTag()).append(" code block.");
        return b.toString();
    }

    /** A Markdown fence longer than any run of backticks inside the content, so the content cannot close it. */
    static String fenced(String content, String info) {
        int longest = 0;
        int run = 0;
        for (int i = 0; i < content.length(); i++) {
            run = content.charAt(i) == '`' ? run + 1 : 0;
            longest = Math.max(longest, run);
        }
        String fence = "`".repeat(Math.max(3, longest + 1));
        String body = content.endsWith("\n") ? content : content + "\n";
        return fence + info + "\n" + body + fence + "\n";
    }

    private static String cut(String text) {
        if (text.length() <= MAX_QUOTED_CHARS) {
            return text;
        }
        return text.substring(0, MAX_QUOTED_CHARS) + "\n… (" + (text.length() - MAX_QUOTED_CHARS) + " more characters)";
    }
}
