/**
 * How a run, an attempt and an execution look to anyone outside: one set of records, one name per fact, that
 * every front door writes with its own Jackson mapper ({@code --json} on the CLI, the HTTP API, its events).
 * Plain records in component order, so any default {@code ObjectMapper} writes the same JSON; times are ISO-8601
 * strings and durations whole milliseconds so that no mapper's date settings can change them.
 *
 * <p>This is the shown form, not the stored one: {@code application.store.RunJson} keeps its own shape so that
 * renaming a field here never migrates a database.
 */
package dev.codeagent.application.view;
