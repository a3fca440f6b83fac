package dev.codeagent.jupyter;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The rules a request's content must meet before a handler sees it; the wire-level proof is {@code HostileMessagesIT}. */
class RequestRulesTest {

    static Stream<Arguments> rules() {
        return Stream.of(
                row("complete_request", "{'code':'1+','cursor_pos':1000000000000}", "cursor_pos must be between 0 and 2 (the length of code), was 1000000000000"),
                row("inspect_request", "{'code':'len','cursor_pos':'x'}", "cursor_pos must be a whole number, was the string \"x\""),
                row("inspect_request", "{'code':'len','cursor_pos':'3'}", "cursor_pos must be a whole number, was the string \"3\""),
                row("complete_request", "{'code':'%%so','cursor_pos':4}", null),
                row("complete_request", "{'code':'\uD83D\uDE00%','cursor_pos':2}", null),
                row("complete_request", "{'code':'\uD83D\uDE00%','cursor_pos':3}", "cursor_pos must be between 0 and 2 (the length of code), was 3"),
                row("complete_request", "{'code':'x','cursor_pos':-1}", "cursor_pos must be between 0 and 1 (the length of code), was -1"),
                row("complete_request", "{'code':'x','cursor_pos':0.5}", "cursor_pos must be a whole number, was 0.5"),
                row("complete_request", "{'code':'x','cursor_pos':1.0}", null),
                row("complete_request", "{'code':'x','cursor_pos':1e400}", "cursor_pos must be between 0 and 1 (the length of code), was 1e400"),
                row("complete_request", "{'code':'x'}", "cursor_pos is required"),
                row("complete_request", "{'cursor_pos':0}", "code is required"),
                row("inspect_request", "{'code':'x','cursor_pos':0,'detail_level':2}", "detail_level must be between 0 and 1, was 2"),
                row("execute_request", "{'code':null}", "code is required"),
                row("execute_request", "{'code':['x']}", "code must be a string, was an array"),
                row("execute_request", "{'code':'1','silent':'no'}", "silent must be true or false, was the string \"no\""),
                row("execute_request", "{'code':'1','user_expressions':{'a':{}}}", "user_expressions.a must be a string, was an object"),
                row("execute_request", "{'code':'1','silent':null,'store_history':true,'extra':[[[]]]}", null),
                row("history_request", "{'hist_access_type':'all'}", "hist_access_type must be one of range, search, tail, was 'all'"),
                row("history_request", "{'hist_access_type':'tail','n':-1}", "n must be between 0 and 2147483647, was -1"),
                row("shutdown_request", "{}", "restart is required"),
                row("shutdown_request", "{'restart':'false'}", "restart must be true or false, was the string \"false\""),
                row("shutdown_request", "{'restart':true}", null),
                row("comm_info_request", "{'target_name':5}", "target_name must be a string, was the number 5"),
                row("comm_open", "{'comm_id':'c','target_name':'t','data':[]}", "data must be an object, was an array"),
                row("kernel_info_request", "{'anything':[1,{}]}", null));
    }

    private static Arguments row(String type, String content, String problem) {
        return Arguments.of(type, content.replace('\'', '"'), problem);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("rules")
    void refusesWhatAHandlerCannotReadAndNamesTheField(String type, String content, String problem) {
        JsonObject c = JsonParser.parseString(content).getAsJsonObject();

        assertThat(RequestRules.check(type, c).orElse(null)).isEqualTo(problem);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("replies")
    void aRequestIsAnsweredWithItsReplyType(String type, String reply) {
        assertThat(RequestRules.replyType(type)).isEqualTo(reply);
    }

    static Stream<Arguments> replies() {
        return Stream.of(Arguments.of("execute_request", "execute_reply"), Arguments.of("frobnicate_request", "frobnicate_reply"),
                Arguments.of("comm_msg", null), Arguments.of("_request", null));
    }
}
