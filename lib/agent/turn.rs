//! One turn (reference `agent` §3): the user message, then model calls and tool calls until
//! the model answers in text, the iteration budget is spent, or the run is interrupted.
//! Every message is stored as it happens: the user message before the first call, an
//! assistant message with tool calls before any tool runs, each result as it is produced.

use std::cell::RefCell;
use std::sync::atomic::Ordering;

use serde_json::{Map, Value, json};

use super::compact;
use super::events::{Item, Observer};
use super::fence;
use super::review::Due;
use super::session::Agent;
use crate::llm::client::RetryObserver;
use crate::llm::wire::{self, CallOptions};
use crate::llm::{Completion, Delta, LlmError, Message, Role, ToolCall, Usage, repair};
use crate::sessions::live;

/// The message that asks for a summary when the budget is spent (stored, as upstream).
pub const BUDGET_SPENT: &str = "You've reached the maximum number of tool-calling iterations \
allowed. Please provide a final response summarizing what you've found and accomplished so \
far, without calling any more tools.";

const MAX_COMPACTIONS_PER_TURN: u32 = 3;

const EMPTY_AFTER_TOOLS: &str = "You just executed tool calls but returned an empty response. \
Please process the tool results above and continue with the task.";

const CONTINUE_TRUNCATED: &str = "[System: Your previous response was truncated by the output \
length limit. Continue exactly where you left off. Do not restart or repeat prior text. \
Finish the answer directly.]";

/// How a turn ended.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TurnOutcome {
    /// The answer, when there is one.
    pub answer: Option<String>,
    /// Why the turn failed (model or API error, empty answers, invalid tool calls).
    pub error: Option<String>,
    /// What a person can do about the error, when we know.
    pub hint: Option<&'static str>,
    pub interrupted: bool,
    /// This turn's own usage.
    pub usage: Usage,
    pub api_calls: u32,
    /// The reviews this turn made due (the caller hands them off).
    pub review: Due,
}

/// Fatal trouble with the store in the middle of a turn.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct TurnError(#[from] crate::sessions::Error);

/// The observer shared by the delta callback and the retry reports of one call.
struct Retries<'a, 'o, O: Observer + ?Sized>(&'a RefCell<&'o mut O>);

impl<O: Observer + ?Sized> RetryObserver for Retries<'_, '_, O> {
    fn retrying(&mut self, attempt: u32, of: u32, error: &LlmError, wait: std::time::Duration) {
        self.0.borrow_mut().retrying(attempt, of, error, wait);
    }
}

impl Agent {
    /// Runs one turn for `text`.
    pub fn run_turn(
        &mut self,
        text: &str,
        observer: &mut dyn Observer,
    ) -> Result<TurnOutcome, TurnError> {
        let mut outcome = TurnOutcome::default();
        self.prompt_ready();
        let memory_tool = self.registry.allows("memory");
        outcome.review.memory = self.counters.start_turn(memory_tool);
        self.ensure_session()?;
        let mut user = Message::user(text);
        user.api_content = self.recall_for(text);
        self.push(user)?;
        self.flush_notices(observer);
        self.maybe_compact(observer, &mut outcome, None)?;

        let mut invalid_strikes = 0;
        let mut empty_retries = 0;
        let mut nudged = false;
        let mut continuations: Vec<String> = Vec::new();
        let mut synthetic: Vec<Message> = Vec::new();
        let mut compactions = 0;
        let mut iterations = 0;
        while iterations < self.settings.max_turns {
            if self.interrupt.load(Ordering::Relaxed) {
                outcome.interrupted = true;
                self.close_interrupted()?;
                return Ok(outcome);
            }
            iterations += 1;
            let estimate = self.estimate_request_tokens(&synthetic);
            self.compact_in_turn(observer, &mut outcome, estimate, &mut compactions)?;
            let options = self.call_options(true);
            let history: std::borrow::Cow<'_, [Message]> = if synthetic.is_empty() {
                std::borrow::Cow::Borrowed(&self.messages)
            } else {
                std::borrow::Cow::Owned([self.messages.as_slice(), synthetic.as_slice()].concat())
            };
            let body = wire::body(&self.wire_system_prompt(), &history, &options);
            let message_id = self.next_item_id();
            let mut streamed = String::new();
            // Recalled context a model echoes back is never shown.
            let mut scrubber = fence::Scrubber::default();
            let reply = {
                let shared = RefCell::new(&mut *observer);
                let mut on_delta = |d: Delta<'_>| match d {
                    Delta::Text(t) => {
                        streamed.push_str(t);
                        let shown = scrubber.push(t);
                        if !shown.is_empty() {
                            shared.borrow_mut().delta(&message_id, &Delta::Text(&shown));
                        }
                    }
                    Delta::Waiting { url, seconds } => shared
                        .borrow_mut()
                        .notice(&format!("waiting for the model at {url} ({seconds} s)…")),
                    other => shared.borrow_mut().delta(&message_id, &other),
                };
                let mut retries = Retries(&shared);
                self.client.complete(&body, &mut on_delta, &mut retries)
            };
            let tail = scrubber.flush();
            if !tail.is_empty() {
                observer.delta(&message_id, &Delta::Text(&tail));
            }
            outcome.api_calls += 1;
            let done = match reply {
                Ok(done) => done,
                Err(failure) => {
                    if let LlmError::Interrupted { partial } = &failure.error {
                        let partial = partial.clone().filter(|p| !p.trim().is_empty());
                        if let Some(p) = partial {
                            self.push(Message::assistant(p))?;
                        }
                        outcome.interrupted = true;
                        self.close_interrupted()?;
                        return Ok(outcome);
                    }
                    outcome.error = Some(failure.to_string());
                    outcome.hint = failure.error.hint();
                    return Ok(outcome);
                }
            };
            self.account(&done, &mut outcome)?;

            if !done.tool_calls.is_empty() {
                self.counters.tool_iteration();
                synthetic.clear();
                let all_invalid = done
                    .tool_calls
                    .iter()
                    .all(|c| !self.registry.allows(&c.name));
                if all_invalid {
                    invalid_strikes += 1;
                    if invalid_strikes >= 3 {
                        let name: String = done.tool_calls[0].name.chars().take(80).collect();
                        outcome.error = Some(format!("Model generated invalid tool call: {name}"));
                        return Ok(outcome);
                    }
                } else {
                    invalid_strikes = 0;
                }
                self.run_tool_calls(&done, &message_id, observer)?;
                self.flush_notices(observer);
                if let Some(prompt_tokens) = done.usage.map(|u| u.prompt).filter(|p| *p > 0) {
                    self.last_prompt_tokens = prompt_tokens;
                }
                continue;
            }

            let raw = fence::sanitize(&strip_think(done.text()));
            let answer = raw.trim().to_string();
            if answer.is_empty() {
                let after_tools = self.messages.iter().rev().take(5).any(|m| m.is(Role::Tool));
                if after_tools && !nudged {
                    nudged = true;
                    synthetic = vec![
                        Message::assistant("(empty)"),
                        Message::user(EMPTY_AFTER_TOOLS),
                    ];
                    continue;
                }
                empty_retries += 1;
                if empty_retries <= 3 {
                    continue;
                }
                outcome.error = Some(
                    "No reply: the model returned empty content after retries. Try again, or \
                     switch model/provider."
                        .to_string(),
                );
                return Ok(outcome);
            }
            if done.finish_reason.as_deref() == Some("length") && continuations.len() < 3 {
                continuations.push(raw.clone());
                let mut partial = Message::assistant(answer);
                partial.finish_reason = Some("length".into());
                partial.reasoning = done.reasoning.clone();
                self.push(partial)?;
                self.push(Message::user(CONTINUE_TRUNCATED))?;
                continue;
            }
            let mut final_message = Message::assistant(answer.clone());
            final_message.finish_reason =
                Some(done.finish_reason.clone().unwrap_or_else(|| "stop".into()));
            final_message.reasoning = done.reasoning.clone();
            self.push(final_message)?;
            let item = Item::new(message_id, "agent_message", json!({"text": answer}));
            observer.item_completed(&item);
            continuations.push(raw);
            outcome.answer = Some(continuations.concat().trim().to_string());
            outcome.review.skills = self.counters.end_turn(self.registry.allows("skill_manage"));
            self.sync_provider(text, outcome.answer.as_deref().unwrap_or(""));
            self.flush_notices(observer);
            return Ok(outcome);
        }
        self.budget_summary(observer, &mut outcome)?;
        if outcome.answer.is_some() {
            outcome.review.skills = self.counters.end_turn(self.registry.allows("skill_manage"));
        }
        Ok(outcome)
    }

    /// The provider's recalled context for this turn, fenced, as the API copy of the user
    /// message (the stored text stays as typed; the exact bytes sent are kept in
    /// `api_content` so a resume sends the same prefix).
    fn recall_for(&mut self, text: &str) -> Option<String> {
        self.provider.as_ref()?;
        if !self.provider_is_full() {
            return None;
        }
        let query = super::invoke::extract_instruction(text).unwrap_or_else(|| text.to_string());
        let session_id = self.session_id.clone();
        let result = self.provider_request(
            "prefetch",
            json!({"query": query, "session_id": session_id}),
        )?;
        let block = fence::block(&super::provider::text_of(&result, "context"))?;
        Some(format!("{text}\n\n{block}"))
    }

    fn sync_provider(&mut self, user: &str, answer: &str) {
        if !self.provider_is_full() {
            return;
        }
        let session_id = self.session_id.clone();
        self.provider_notify(
            "sync_turn",
            json!({"user": user, "assistant": answer, "session_id": session_id}),
        );
    }

    fn flush_notices(&mut self, observer: &mut dyn Observer) {
        for notice in self.take_notices() {
            observer.notice(&notice);
        }
    }

    /// An interrupted turn ends with an assistant message, so the stored transcript and the
    /// model's context alternate and say what happened.
    fn close_interrupted(&mut self) -> Result<(), TurnError> {
        if self
            .messages
            .last()
            .is_some_and(|m| !m.is(Role::Assistant) || !m.tool_calls.is_empty())
        {
            let mut closing = Message::assistant("Operation interrupted.");
            closing.finish_reason = Some("interrupted".into());
            self.push(closing)?;
        }
        Ok(())
    }

    fn call_options(&self, with_tools: bool) -> CallOptions {
        CallOptions {
            model: self.endpoint.model.clone(),
            max_tokens: self.endpoint.max_tokens,
            reasoning_effort: self.endpoint.reasoning_effort.clone(),
            stream: with_tools,
            tools: if with_tools {
                self.registry.schemas().to_vec()
            } else {
                Vec::new()
            },
        }
    }

    fn trigger(&self) -> u64 {
        self.settings.compaction_trigger(self.endpoint.max_tokens)
    }

    /// chars/4 over the system prompt, the messages and the tool schemas.
    fn estimate_request_tokens(&self, extra: &[Message]) -> u64 {
        let chars: usize = self.system_prompt.len()
            + self.ephemeral.len()
            + self
                .messages
                .iter()
                .chain(extra)
                .map(compact::message_chars)
                .sum::<usize>()
            + self.registry.schema_chars();
        compact::estimate_tokens(chars)
    }

    fn account(&mut self, done: &Completion, outcome: &mut TurnOutcome) -> Result<(), TurnError> {
        if let Some(u) = done.usage {
            outcome.usage.add(u);
            let billing = live::Billing {
                model: &self.endpoint.model,
                provider: &self.endpoint.provider,
                base_url: &self.endpoint.base_url,
                at: self.clock.now(),
            };
            live::add_usage(&mut self.db, &self.session_id, &u, &billing)?;
        } else {
            self.calls_without_usage += 1;
        }
        Ok(())
    }

    /// Stores the assistant message, then runs each call in order and stores its result.
    fn run_tool_calls(
        &mut self,
        done: &Completion,
        message_id: &str,
        observer: &mut dyn Observer,
    ) -> Result<(), TurnError> {
        let mut calls: Vec<ToolCall> = Vec::new();
        for (i, call) in done.tool_calls.iter().enumerate() {
            let mut call = call.clone();
            if call.id.is_empty() {
                call.id = format!(
                    "call_{:012x}",
                    super::session::fnv(&format!("{}:{}:{i}", call.name, call.arguments))
                        & 0xffff_ffff_ffff
                );
            }
            // The same call twice in one answer runs once.
            if !calls
                .iter()
                .any(|c| c.name == call.name && c.arguments == call.arguments)
            {
                calls.push(call);
            }
        }
        let mut assistant = Message::assistant(strip_think(done.text()).trim());
        assistant.tool_calls = calls.clone();
        assistant.finish_reason = Some("tool_calls".into());
        assistant.reasoning = done.reasoning.clone();
        self.push(assistant)?;
        if let Some(text) = done
            .content
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
        {
            observer.item_completed(&Item::new(
                message_id.to_string(),
                "agent_message",
                json!({"text": text}),
            ));
        }
        for call in &calls {
            if self.interrupt.load(Ordering::Relaxed) {
                let text = format!(
                    "[Tool execution cancelled — {} was skipped due to user interrupt]",
                    call.name
                );
                self.push(Message::tool_result(
                    call,
                    self.registry.allows(&call.name),
                    text,
                ))?;
                continue;
            }
            if !self.registry.allows(&call.name) && self.tool_hook.is_none() {
                let text = self.registry.unknown_tool_text(&call.name);
                let mut result = Message::tool_result(call, false, text);
                result.wire_name = Some(call.name.clone());
                self.push(result)?;
                continue;
            }
            let id = self.next_item_id();
            let (text, item, approval) = match parse_arguments(&call.arguments) {
                Ok(args) => {
                    let started = match call.name.as_str() {
                        "terminal" => Item::new(
                            id.clone(),
                            "command_execution",
                            json!({
                            "command": args.get("command").cloned().unwrap_or(Value::Null),
                            "aggregated_output": "", "exit_code": null, "status": "in_progress"}),
                        ),
                        "write_file" | "patch" => Item::new(
                            id.clone(),
                            "file_change",
                            json!({
                            "changes": [], "status": "in_progress"}),
                        ),
                        name => Item::new(
                            id.clone(),
                            "tool_call",
                            json!({"name": name,
                            "arguments": Value::Object(args.clone()), "result": null, "status": "in_progress"}),
                        ),
                    };
                    observer.item_started(&started);
                    self.dispatch(call, &args, id, observer)
                }
                Err(text) => {
                    let item = Item::new(
                        id,
                        "tool_call",
                        json!({"name": call.name,
                        "arguments": call.arguments, "result": text, "status": "failed"}),
                    );
                    (text, item, None)
                }
            };
            if let Some(a) = approval {
                observer.item_completed(&a);
            }
            observer.item_completed(&item);
            // The item's status is the dispatcher's reading of the tool's own answer.
            let succeeded = item.fields.get("status").and_then(Value::as_str) == Some("completed");
            match call.name.as_str() {
                "memory" if succeeded => self.counters.memory_used(),
                "skill_manage" => self.counters.skills_used(),
                _ => {}
            }
            self.push(Message::tool_result(call, true, text))?;
        }
        Ok(())
    }

    /// Compacts between the calls of a turn when the request has grown over the trigger, at
    /// most [`MAX_COMPACTIONS_PER_TURN`] times. (The calls after the question are never
    /// compacted away, so a turn finds a middle worth summarising twice at most: the limit
    /// is a guard against a loop of summary calls, not a rule that binds.)
    fn compact_in_turn(
        &mut self,
        observer: &mut dyn Observer,
        outcome: &mut TurnOutcome,
        estimate: u64,
        done: &mut u32,
    ) -> Result<(), TurnError> {
        if *done < MAX_COMPACTIONS_PER_TURN
            && self.maybe_compact(observer, outcome, Some(estimate))?
        {
            *done += 1;
        }
        Ok(())
    }

    /// Compacts when the estimate (or the last real prompt size) is over the trigger.
    /// Whether it compacted.
    fn maybe_compact(
        &mut self,
        observer: &mut dyn Observer,
        outcome: &mut TurnOutcome,
        estimate: Option<u64>,
    ) -> Result<bool, TurnError> {
        let before = estimate.unwrap_or_else(|| {
            self.estimate_request_tokens(&[])
                .max(self.last_prompt_tokens)
        });
        if !self.settings.compression.enabled || before <= self.trigger() {
            return Ok(false);
        }
        self.compact_now(observer, outcome, before)
    }

    /// Forces a compaction (also `/compact` in the terminal session).
    pub fn compact_now(
        &mut self,
        observer: &mut dyn Observer,
        outcome: &mut TurnOutcome,
        before: u64,
    ) -> Result<bool, TurnError> {
        let trigger = self.trigger();
        let tail_budget = (self.settings.compression.target_ratio * trigger as f64) as u64;
        let Some(plan) = compact::plan(
            &self.messages,
            self.settings.compression.protect_first_n,
            tail_budget,
        ) else {
            return Ok(false);
        };
        let middle = self.messages[plan.head..plan.tail_start].to_vec();
        let provider_notes = if self.provider.is_some() {
            let lines: Vec<Value> = middle.iter().map(Message::to_line).collect();
            self.provider_request("on_pre_compress", json!({"messages": lines}))
                .map(|v| super::provider::text_of(&v, "text"))
                .unwrap_or_default()
        } else {
            String::new()
        };
        let max_chars = summary_chars(self.settings.context_length, self.endpoint.max_tokens);
        let mut request = compact::summary_request(&middle, max_chars);
        if !provider_notes.trim().is_empty()
            && let Some(Value::String(content)) = request.pointer_mut("/0/content")
        {
            content.push_str(&format!(
                "\n\nNOTES FROM THE MEMORY PROVIDER:\n{}",
                provider_notes.trim()
            ));
        }
        let mut body = Map::new();
        body.insert("model".into(), json!(self.endpoint.model));
        body.insert("messages".into(), request);
        let reply = self
            .client
            .complete(&Value::Object(body), &mut |_| {}, &mut ());
        outcome.api_calls += 1;
        let summary = match reply {
            Ok(done) if !strip_think(done.text()).trim().is_empty() => {
                strip_think(done.text()).trim().to_string()
            }
            _ => compact::fallback_summary(&middle),
        };
        let rebuilt = compact::rebuild(&self.messages, &plan, &summary);
        let previous_session = self.session_id.clone();
        let ids = if self.settings.compression.in_place {
            live::archive_and_compact(&mut self.db, &self.session_id, &rebuilt, self.clock.now())?
        } else {
            self.rotate_session(&rebuilt)?
        };
        self.messages = rebuilt
            .into_iter()
            .zip(ids)
            .map(|(mut m, id)| {
                m.stored_id = Some(id);
                m
            })
            .collect();
        let after = self.estimate_request_tokens(&[]);
        self.last_prompt_tokens = 0;
        self.forget_reads();
        let id = self.next_item_id();
        observer.item_completed(&Item::new(
            id,
            "compaction",
            if previous_session == self.session_id {
                json!({"tokens_before": before, "tokens_after": after})
            } else {
                json!({"tokens_before": before, "tokens_after": after,
                    "session_id": self.session_id, "parent_session_id": previous_session})
            },
        ));
        Ok(true)
    }

    /// The budget is spent: ask once, without tools, for a summary of where things stand.
    fn budget_summary(
        &mut self,
        observer: &mut dyn Observer,
        outcome: &mut TurnOutcome,
    ) -> Result<(), TurnError> {
        observer.notice(&format!(
            "reached the limit of {} model calls for this turn; asking for a summary",
            self.settings.max_turns
        ));
        self.push(Message::user(BUDGET_SPENT))?;
        let body = wire::body(
            &self.wire_system_prompt(),
            &self.messages,
            &self.call_options(false),
        );
        let reply = self.client.complete(&body, &mut |_| {}, &mut ());
        outcome.api_calls += 1;
        match reply {
            Ok(done) => {
                self.account(&done, outcome)?;
                let text = strip_think(done.text()).trim().to_string();
                if text.is_empty() {
                    outcome.error = Some(format!(
                        "reached the limit of {} model calls without an answer",
                        self.settings.max_turns
                    ));
                    return Ok(());
                }
                self.push(Message::assistant(text.clone()))?;
                let id = self.next_item_id();
                observer.item_completed(&Item::new(id, "agent_message", json!({"text": text})));
                outcome.answer = Some(text);
            }
            Err(failure) => {
                outcome.error = Some(format!(
                    "reached the limit of {} model calls; the summary call failed: {failure}",
                    self.settings.max_turns
                ));
            }
        }
        Ok(())
    }
}

/// How many characters of the conversation a summary request may carry: the window less the
/// answer's room (its cap, at most a quarter of the window) and a tenth for safety, four
/// characters a token, and never below 4,000.
fn summary_chars(window: u64, max_tokens: Option<u64>) -> usize {
    let answer_room = max_tokens.unwrap_or(4096).min(window / 4);
    let budget_tokens = window
        .saturating_sub(answer_room)
        .saturating_sub(window / 10);
    ((budget_tokens * 4) as usize).max(4_000)
}

/// Arguments as an object: valid JSON, or JSON a cut stream damaged and we could repair.
/// Anything else is answered with an error the model can act on, and the tool is not run.
fn parse_arguments(raw: &str) -> Result<Map<String, Value>, String> {
    if raw.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str::<Value>(raw) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err("{\"error\": \"Invalid tool arguments\", \"message\": \"Tool arguments must be a valid JSON object; tool was not executed.\"}".to_string()),
        Err(e) => match repair::repair_json(raw) {
            Some(Value::Object(map)) => Ok(map),
            _ => Err(format!(
                "Error: Invalid JSON arguments. {e}. For tools with no required parameters, use an empty object: {{}}. Please retry with valid JSON."
            )),
        },
    }
}

/// Removes `<think>…</think>` blocks (and a dangling opener's tail) from an answer.
pub fn strip_think(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    loop {
        match rest.find("<think>") {
            Some(start) => {
                out.push_str(&rest[..start]);
                match rest[start..].find("</think>") {
                    Some(end) => rest = &rest[start + end + "</think>".len()..],
                    None => return out,
                }
            }
            None => {
                out.push_str(rest);
                return out;
            }
        }
    }
}

/// A title from the first question, made without a model call: its first line, at most 60
/// characters cut at a word, without trailing punctuation.
pub fn title_from(question: &str) -> String {
    let line = question
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let mut title = String::new();
    for word in line.split_whitespace() {
        if title.chars().count() + word.chars().count() + 1 > 60 {
            break;
        }
        if !title.is_empty() {
            title.push(' ');
        }
        title.push_str(word);
    }
    if title.is_empty() {
        title = line.chars().take(60).collect();
    }
    title
        .trim_end_matches(['.', ',', ';', ':', '?', '!'])
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_objects_or_an_error_for_the_model() {
        assert!(parse_arguments("").unwrap().is_empty());
        assert!(parse_arguments("{\"a\": 1,}").is_ok());
        assert!(
            parse_arguments("[1, 2]")
                .unwrap_err()
                .contains("Invalid tool arguments")
        );
        assert!(
            parse_arguments("{path: a}")
                .unwrap_err()
                .starts_with("Error: Invalid JSON arguments.")
        );
    }

    #[test]
    fn a_summary_request_fits_the_window_with_room_for_the_answer() {
        assert_eq!(summary_chars(80_000, None), (80_000 - 4096 - 8000) * 4);
        assert_eq!(
            summary_chars(80_000, Some(30_000)),
            (80_000 - 20_000 - 8000) * 4
        );
        assert_eq!(
            summary_chars(256_000, Some(1000)),
            (256_000 - 1000 - 25_600) * 4
        );
        assert_eq!(summary_chars(1000, None), 4000);
    }

    #[test]
    fn titles_take_whole_words_up_to_sixty_characters() {
        let thirty = "a".repeat(30);
        let twenty_nine = "b".repeat(29);
        assert_eq!(
            title_from(&format!("{thirty} {twenty_nine} c")),
            format!("{thirty} {twenty_nine}")
        );
        assert_eq!(title_from(&format!("{thirty} {thirty}")), thirty.clone());
        // One word longer than the limit is cut inside it.
        assert_eq!(title_from(&"w".repeat(70)), "w".repeat(60));
        assert_eq!(title_from("\n  \nWhy?!\n"), "Why");
        assert_eq!(title_from(""), "");
    }

    #[test]
    fn think_blocks_are_removed() {
        assert_eq!(strip_think("<think>hm</think>Answer"), "Answer");
        assert_eq!(strip_think("A<think>x"), "A");
    }

    #[test]
    fn titles_come_from_the_first_line() {
        assert_eq!(
            title_from("  How do I renew the nginx cert?\nmore"),
            "How do I renew the nginx cert"
        );
        let long = "word ".repeat(30);
        assert!(title_from(&long).chars().count() <= 60);
    }
}

/// The loop itself, on a scripted model: what is sent, stored and reported.
#[cfg(test)]
mod loop_tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    use serde_json::{Value, json};

    use super::{BUDGET_SPENT, CONTINUE_TRUNCATED, EMPTY_AFTER_TOOLS};
    use crate::agent::session::ToolHook;
    use crate::agent::testing::{Recorder, after_four_big_turns, agent, agent_with, tool_names};
    use crate::llm::testing::{answer, tool_call};
    use crate::llm::{Completion, LlmError, ToolCall, Usage};

    fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
        items
            .iter()
            .map(|(r, c)| (r.to_string(), c.to_string()))
            .collect()
    }

    fn roles(body: &Value) -> Vec<String> {
        body["messages"]
            .as_array()
            .map(|ms| {
                ms.iter()
                    .map(|m| m["role"].as_str().unwrap_or("?").to_string())
                    .collect()
            })
            .unwrap_or_default()
    }

    fn calls(list: &[(&str, &str, &str)]) -> Result<Completion, LlmError> {
        Ok(Completion {
            tool_calls: list
                .iter()
                .map(|(id, name, arguments)| ToolCall {
                    id: id.to_string(),
                    name: name.to_string(),
                    arguments: arguments.to_string(),
                })
                .collect(),
            finish_reason: Some("tool_calls".into()),
            ..Default::default()
        })
    }

    fn cut(text: &str) -> Result<Completion, LlmError> {
        Ok(Completion {
            content: Some(text.into()),
            finish_reason: Some("length".into()),
            ..Default::default()
        })
    }

    #[test]
    fn an_answer_is_stored_after_the_question_and_the_request_carries_prompt_and_tools() {
        let mut t = agent(vec![answer("Hello there.")]);
        let (outcome, heard) = t.turn("hi");
        assert_eq!(outcome.answer.as_deref(), Some("Hello there."));
        assert_eq!((outcome.api_calls, outcome.error), (1, None));
        assert!(!outcome.interrupted);
        let want = pairs(&[("user", "hi"), ("assistant", "Hello there.")]);
        assert_eq!(t.live(), want);
        assert_eq!(t.stored(), want);
        assert_eq!(t.agent.messages[1].finish_reason.as_deref(), Some("stop"));
        let sent = t.sent();
        assert_eq!(sent.len(), 1);
        let prompt = t.agent.system_prompt().to_string();
        assert!(prompt.contains("\nModel: m1\n"), "{prompt}");
        assert_eq!(
            sent[0]["messages"],
            json!([{"role": "system", "content": prompt}, {"role": "user", "content": "hi"}])
        );
        assert_eq!(sent[0]["model"], "m1");
        assert_eq!(sent[0]["stream"], true);
        assert_eq!(
            tool_names(&sent[0]),
            [
                "memory",
                "patch",
                "read_file",
                "search_files",
                "session_search",
                "skill_manage",
                "skill_view",
                "skills_list",
                "terminal",
                "write_file"
            ]
        );
        assert_eq!(
            heard.completed(),
            [json!({"type": "agent_message", "text": "Hello there."})]
        );
        assert_eq!(heard.streamed(), "Hello there.");
        assert_eq!(t.column("source"), "cli");
        assert_eq!(t.column("model"), "m1");
        assert_eq!(t.column("system_prompt"), json!(prompt));
    }

    #[test]
    fn usage_is_the_turns_and_is_added_to_the_session_row() {
        let usage = Usage {
            input: 100,
            output: 20,
            cache_read: 7,
            cache_write: 3,
            reasoning: 5,
            prompt: 110,
        };
        let with_usage = |text: &str| {
            Ok(Completion {
                content: Some(text.into()),
                finish_reason: Some("stop".into()),
                usage: Some(usage),
                ..Default::default()
            })
        };
        let mut t = agent(vec![with_usage("one"), with_usage("two")]);
        assert_eq!(t.agent.usage_totals().ok(), Some([0; 6]));
        let (first, _) = t.turn("a");
        assert_eq!(first.usage, usage);
        let (second, _) = t.turn("b");
        assert_eq!(second.usage, usage);
        assert_eq!(t.agent.usage_totals().ok(), Some([200, 40, 14, 6, 10, 2]));
        assert_eq!(t.agent.calls_without_usage, 0);
    }

    /// Hermes counts a call in the session row only with its usage; the run counts the
    /// others apart, and a new session starts from none.
    #[test]
    fn calls_that_report_no_usage_are_counted_apart() {
        let mut t = agent(vec![
            tool_call("read_file", r#"{"path": "notes.txt"}"#),
            answer("one"),
            answer("two"),
        ]);
        t.turn("a");
        t.turn("b");
        assert_eq!(t.agent.usage_totals().ok(), Some([0; 6]));
        assert_eq!(t.agent.calls_without_usage, 3);
        assert!(t.agent.start_new_session().is_ok());
        assert_eq!(t.agent.calls_without_usage, 0);
    }

    #[test]
    fn a_tool_call_runs_and_its_result_goes_back_to_the_model() {
        let mut t = agent(vec![
            tool_call("read_file", r#"{"path": "notes.txt"}"#),
            answer("It says alpha."),
        ]);
        if let Err(e) = std::fs::write(t.work().join("notes.txt"), "alpha\n") {
            panic!("{e}");
        }
        let (outcome, heard) = t.turn("What do my notes say?");
        assert_eq!(outcome.answer.as_deref(), Some("It says alpha."));
        assert_eq!(outcome.api_calls, 2);
        let live = t.live();
        let roles_live: Vec<&str> = live.iter().map(|(r, _)| r.as_str()).collect();
        assert_eq!(roles_live, ["user", "assistant", "tool", "assistant"]);
        assert_eq!(t.stored(), live);
        let result = &t.agent.messages[2];
        assert_eq!(result.tool_call_id.as_deref(), Some("call_1"));
        assert!(result.content.contains("alpha"), "{}", result.content);
        assert_eq!(
            t.agent.messages[1].finish_reason.as_deref(),
            Some("tool_calls")
        );
        let sent = t.sent();
        assert_eq!(roles(&sent[1]), ["system", "user", "assistant", "tool"]);
        assert_eq!(
            sent[1]["messages"][2]["tool_calls"],
            json!([{"id": "call_1", "type": "function",
                "function": {"name": "read_file", "arguments": "{\"path\":\"notes.txt\"}"}}])
        );
        assert_eq!(sent[1]["messages"][3]["tool_call_id"], "call_1");
        assert_eq!(sent[1]["messages"][3]["name"], "read_file");
        let started: Vec<&Value> = heard
            .events
            .iter()
            .filter(|e| e["event"] == "started")
            .collect();
        assert_eq!(started.len(), 1);
        assert_eq!(
            started[0]["item"],
            json!({"id": "item_2", "type": "tool_call", "name": "read_file",
                "arguments": {"path": "notes.txt"}, "result": null, "status": "in_progress"})
        );
        let done = heard.completed();
        assert_eq!(done.len(), 2);
        assert_eq!(done[0]["type"], "tool_call");
        assert_eq!(done[0]["status"], "completed");
        assert_eq!(done[0]["result"], json!(result.content));
        assert_eq!(
            done[1],
            json!({"type": "agent_message", "text": "It says alpha."})
        );
    }

    #[test]
    fn the_same_call_twice_in_one_answer_runs_once_and_a_missing_id_is_made_up() {
        let args = r#"{"path": "a.txt", "content": "x"}"#;
        let mut t = agent(vec![
            calls(&[("", "write_file", args), ("", "write_file", args)]),
            answer("Written."),
        ]);
        t.turn("write it");
        let made = &t.agent.messages[1].tool_calls;
        assert_eq!(made.len(), 1);
        assert_eq!(made[0].id, "call_525b5d76211a");
        let results: Vec<&str> = t
            .agent
            .messages
            .iter()
            .filter_map(|m| m.tool_call_id.as_deref())
            .collect();
        assert_eq!(results, ["call_525b5d76211a"]);
    }

    #[test]
    fn calls_to_a_tool_the_agent_lacks_are_answered_with_the_list_and_three_in_a_row_end_the_turn()
    {
        let mut t = agent(vec![
            tool_call("browser", "{}"),
            tool_call("browser", "{}"),
            tool_call("browser", "{}"),
            answer("never asked for"),
        ]);
        let (outcome, _) = t.turn("look it up");
        assert_eq!(
            outcome.error.as_deref(),
            Some("Model generated invalid tool call: browser")
        );
        assert_eq!((outcome.api_calls, outcome.answer), (3, None));
        let result = &t.agent.messages[2];
        assert_eq!(
            result.content,
            "Tool 'browser' does not exist. Available tools: memory, patch, read_file, \
             search_files, session_search, skill_manage, skill_view, skills_list, terminal, \
             write_file"
        );
        let sent = t.sent();
        assert_eq!(sent[1]["messages"][3]["name"], "browser");
    }

    #[test]
    fn a_valid_call_between_invalid_ones_starts_the_count_again() {
        let mut t = agent(vec![
            tool_call("browser", "{}"),
            tool_call("browser", "{}"),
            tool_call("skills_list", "{}"),
            tool_call("browser", "{}"),
            tool_call("browser", "{}"),
            answer("Found nothing."),
        ]);
        let (outcome, _) = t.turn("look it up");
        assert_eq!(outcome.answer.as_deref(), Some("Found nothing."));
        assert_eq!((outcome.api_calls, outcome.error), (6, None));
    }

    #[test]
    fn arguments_that_are_not_an_object_are_refused_and_the_tool_does_not_run() {
        let mut t = agent(vec![tool_call("write_file", "[1, 2]"), answer("Sorry.")]);
        let (outcome, heard) = t.turn("write");
        assert_eq!(outcome.answer.as_deref(), Some("Sorry."));
        let refusal = "{\"error\": \"Invalid tool arguments\", \"message\": \"Tool arguments \
                       must be a valid JSON object; tool was not executed.\"}";
        assert_eq!(t.agent.messages[2].content, refusal);
        assert_eq!(
            heard.completed()[0],
            json!({"type": "tool_call", "name": "write_file", "arguments": "[1, 2]",
                "result": refusal, "status": "failed"})
        );
        assert!(heard.events.iter().all(|e| e["event"] != "started"));
    }

    #[test]
    fn an_empty_answer_after_tools_is_nudged_once_and_the_nudge_is_not_stored() {
        let mut t = agent(vec![
            tool_call("skills_list", "{}"),
            answer(""),
            answer("Done."),
        ]);
        let (outcome, _) = t.turn("list them");
        assert_eq!(outcome.answer.as_deref(), Some("Done."));
        assert_eq!(outcome.api_calls, 3);
        let sent = t.sent();
        assert_eq!(
            roles(&sent[2]),
            ["system", "user", "assistant", "tool", "assistant", "user"]
        );
        assert_eq!(sent[2]["messages"][4]["content"], "(empty)");
        assert_eq!(sent[2]["messages"][5]["content"], EMPTY_AFTER_TOOLS);
        let stored = t.stored();
        assert_eq!(stored.len(), 4);
        assert!(
            stored
                .iter()
                .all(|(_, c)| c != "(empty)" && c != EMPTY_AFTER_TOOLS)
        );
    }

    #[test]
    fn a_second_empty_answer_after_tools_is_retried_without_another_nudge() {
        let mut t = agent(vec![
            tool_call("skills_list", "{}"),
            answer(""),
            answer(""),
            answer("Done."),
        ]);
        let (outcome, _) = t.turn("list them");
        assert_eq!(outcome.answer.as_deref(), Some("Done."));
        let sent = t.sent();
        assert_eq!(roles(&sent[2]).len(), 6);
        assert_eq!(roles(&sent[3]).len(), 6);
    }

    #[test]
    fn empty_answers_are_retried_three_times_then_the_turn_fails() {
        let mut t = agent(vec![
            answer(""),
            answer("  "),
            answer("<think>only thinking</think>"),
            answer(""),
            answer("too late"),
        ]);
        let (outcome, _) = t.turn("hello?");
        assert_eq!(
            outcome.error.as_deref(),
            Some(
                "No reply: the model returned empty content after retries. Try again, or switch \
                 model/provider."
            )
        );
        assert_eq!((outcome.api_calls, outcome.answer), (4, None));
        assert_eq!(t.stored(), pairs(&[("user", "hello?")]));

        let mut t = agent(vec![answer(""), answer(""), answer(""), answer("Here.")]);
        let (outcome, _) = t.turn("hello?");
        assert_eq!(outcome.answer.as_deref(), Some("Here."));
    }

    #[test]
    fn a_cut_answer_is_continued_and_the_parts_joined() {
        let mut t = agent(vec![cut("Part one, "), answer("part two.")]);
        let (outcome, heard) = t.turn("explain");
        assert_eq!(outcome.answer.as_deref(), Some("Part one, part two."));
        assert_eq!(
            t.stored(),
            pairs(&[
                ("user", "explain"),
                ("assistant", "Part one,"),
                ("user", CONTINUE_TRUNCATED),
                ("assistant", "part two.")
            ])
        );
        assert_eq!(t.agent.messages[1].finish_reason.as_deref(), Some("length"));
        assert_eq!(
            heard.completed(),
            [json!({"type": "agent_message", "text": "part two."})]
        );
    }

    #[test]
    fn an_answer_is_continued_at_most_three_times() {
        let mut t = agent(vec![cut("a "), cut("b "), cut("c "), cut("d"), answer("e")]);
        let (outcome, _) = t.turn("go");
        assert_eq!(outcome.answer.as_deref(), Some("a b c d"));
        assert_eq!(outcome.api_calls, 4);
        assert_eq!(t.agent.messages.len(), 8);
        assert_eq!(t.agent.messages[7].finish_reason.as_deref(), Some("length"));
    }

    #[test]
    fn a_spent_budget_asks_once_without_tools_for_a_summary() {
        let mut t = agent_with(
            "agent: {max_turns: 2}\n",
            vec![
                tool_call("skills_list", "{}"),
                tool_call("skills_list", r#"{"category": "ops"}"#),
                answer("Summary so far."),
            ],
            |_| {},
        );
        let (outcome, heard) = t.turn("keep going");
        assert_eq!(outcome.answer.as_deref(), Some("Summary so far."));
        assert_eq!((outcome.api_calls, outcome.error), (3, None));
        assert_eq!(
            heard.notices,
            ["reached the limit of 2 model calls for this turn; asking for a summary"]
        );
        let sent = t.sent();
        assert!(sent[2].get("tools").is_none());
        assert!(sent[2].get("stream").is_none());
        let last = roles(&sent[2]).len() - 1;
        assert_eq!(sent[2]["messages"][last]["content"], BUDGET_SPENT);
        let stored = t.stored();
        assert_eq!(
            stored[stored.len() - 2],
            ("user".into(), BUDGET_SPENT.into())
        );
        assert_eq!(
            stored[stored.len() - 1],
            ("assistant".into(), "Summary so far.".into())
        );
        assert_eq!(
            heard.completed().last(),
            Some(&json!({"type": "agent_message", "text": "Summary so far."}))
        );
    }

    #[test]
    fn a_budget_summary_that_is_empty_or_fails_is_the_turns_error() {
        let mut t = agent_with(
            "agent: {max_turns: 1}\n",
            vec![tool_call("skills_list", "{}"), answer("<think>hmm</think>")],
            |_| {},
        );
        let (outcome, _) = t.turn("go");
        assert_eq!(
            outcome.error.as_deref(),
            Some("reached the limit of 1 model calls without an answer")
        );
        assert_eq!(outcome.answer, None);

        let mut t = agent_with(
            "agent: {max_turns: 1}\n",
            vec![tool_call("skills_list", "{}")],
            |_| {},
        );
        let (outcome, _) = t.turn("go");
        assert_eq!(
            outcome.error.as_deref(),
            Some(
                "reached the limit of 1 model calls; the summary call failed: the endpoint sent \
                 something that is not a chat completion: script ended"
            )
        );
    }

    #[test]
    fn a_failed_call_ends_the_turn_with_its_error_and_hint() {
        let mut t = agent(vec![Err(LlmError::Http {
            status: 401,
            message: "bad key".into(),
            retry_after: None,
        })]);
        let (outcome, _) = t.turn("hi");
        assert_eq!(outcome.error.as_deref(), Some("HTTP 401: bad key"));
        assert_eq!(
            outcome.hint,
            Some(
                "check the API key: HERMES_API_KEY, model.api_key in config.yaml, or the provider's key variable"
            )
        );
        assert_eq!((outcome.api_calls, outcome.answer), (1, None));
    }

    #[test]
    fn an_interrupt_before_the_call_closes_the_turn_without_calling() {
        let mut t = agent(vec![answer("never")]);
        t.agent.interrupt.store(true, Ordering::Relaxed);
        let (outcome, _) = t.turn("hi");
        assert!(outcome.interrupted);
        assert_eq!(outcome.api_calls, 0);
        assert_eq!(
            t.stored(),
            pairs(&[("user", "hi"), ("assistant", "Operation interrupted.")])
        );
        assert_eq!(
            t.agent.messages[1].finish_reason.as_deref(),
            Some("interrupted")
        );
        assert!(t.sent().is_empty());
    }

    #[test]
    fn an_interrupted_stream_keeps_what_was_said_and_needs_no_closing() {
        let mut t = agent(vec![Err(LlmError::Interrupted {
            partial: Some("Half an ans".into()),
        })]);
        let (outcome, _) = t.turn("hi");
        assert!(outcome.interrupted);
        assert_eq!(outcome.error, None);
        assert_eq!(
            t.stored(),
            pairs(&[("user", "hi"), ("assistant", "Half an ans")])
        );

        let mut t = agent(vec![Err(LlmError::Interrupted {
            partial: Some("  ".into()),
        })]);
        t.turn("hi");
        assert_eq!(
            t.stored(),
            pairs(&[("user", "hi"), ("assistant", "Operation interrupted.")])
        );
    }

    /// Interrupts the run at its first call and answers every call with `{"ok": true}`.
    struct InterruptingHook(Arc<AtomicBool>);

    impl ToolHook for InterruptingHook {
        fn call(&mut self, _: &str, _: &Value) -> Value {
            self.0.store(true, Ordering::Relaxed);
            json!({"ok": true})
        }
    }

    #[test]
    fn calls_after_an_interrupt_are_skipped_and_the_turn_is_closed() {
        let mut t = agent(vec![
            calls(&[
                ("c1", "skills_list", "{}"),
                ("c2", "skill_view", r#"{"name": "x"}"#),
            ]),
            answer("never"),
        ]);
        let flag = t.agent.interrupt.clone();
        t.agent.set_tool_hook(Box::new(InterruptingHook(flag)));
        let (outcome, _) = t.turn("go");
        assert!(outcome.interrupted);
        assert_eq!(outcome.api_calls, 1);
        assert_eq!(
            t.stored(),
            pairs(&[
                ("user", "go"),
                ("assistant", ""),
                ("tool", "{\"ok\": true}"),
                (
                    "tool",
                    "[Tool execution cancelled — skill_view was skipped due to user interrupt]"
                ),
                ("assistant", "Operation interrupted.")
            ])
        );
    }

    #[test]
    fn think_blocks_are_not_part_of_the_answer() {
        let mut t = agent(vec![Ok(Completion {
            content: Some("<think>plan it</think>The answer.".into()),
            reasoning: Some("step by step".into()),
            finish_reason: Some("stop".into()),
            ..Default::default()
        })]);
        let (outcome, _) = t.turn("q");
        assert_eq!(outcome.answer.as_deref(), Some("The answer."));
        assert_eq!(t.agent.messages[1].content, "The answer.");
        assert_eq!(
            t.agent.messages[1].reasoning.as_deref(),
            Some("step by step")
        );
    }

    #[test]
    fn text_beside_tool_calls_is_shown_and_stored_with_them() {
        let mut t = agent(vec![
            Ok(Completion {
                content: Some("Let me look. ".into()),
                ..calls(&[("c1", "skills_list", "{}")]).unwrap_or_default()
            }),
            answer("Nothing there."),
        ]);
        let (_, heard) = t.turn("q");
        assert_eq!(t.agent.messages[1].content, "Let me look.");
        assert_eq!(
            heard.completed()[0],
            json!({"type": "agent_message", "text": "Let me look."})
        );
    }

    /// A window of 80,000 tokens: compaction triggers above 64,000 (256,000 characters).
    const SMALL_WINDOW: &str = "model: {context_length: 80000}\n";

    #[test]
    fn a_compaction_keeps_head_and_tail_and_sends_the_middle_to_be_summarised() {
        let big = |c: char| c.to_string().repeat(20_000);
        let mut t = after_four_big_turns(SMALL_WINDOW, "The summary.", |_| {});
        let mut heard = Recorder::default();
        let mut outcome = super::TurnOutcome::default();
        let compacted = t.agent.compact_now(&mut heard, &mut outcome, 99);
        assert!(matches!(compacted, Ok(true)));
        assert_eq!(outcome.api_calls, 1);
        let sent = t.sent();
        let request = &sent[4];
        assert_eq!(request["model"], "m1");
        assert!(request.get("tools").is_none() && request.get("stream").is_none());
        let text = request["messages"][0]["content"].as_str().unwrap_or("");
        assert!(
            text.starts_with("You are writing a context checkpoint"),
            "{text}"
        );
        let middle = format!(
            "CONVERSATION:\n\n[assistant] {}\n\n[user] {}\n\n[assistant] {}",
            big('b'),
            big('r'),
            big('c')
        );
        assert!(text.ends_with(&middle));
        let summary = format!(
            "{}\nThe summary.\n\n{}",
            crate::agent::compact::SUMMARY_PREFIX,
            crate::agent::compact::SUMMARY_SUFFIX
        );
        let want = pairs(&[
            ("user", &big('p')),
            ("assistant", &big('a')),
            ("user", &big('q')),
            ("assistant", &summary),
            ("user", &big('s')),
            ("assistant", &big('d')),
        ]);
        assert_eq!(t.live(), want);
        assert_eq!(t.stored(), want);
        let after = (5 * 20_000
            + summary.len()
            + t.agent.system_prompt().len()
            + t.agent.registry.schema_chars())
        .div_ceil(4) as u64;
        assert_eq!(
            heard.completed(),
            [json!({"type": "compaction", "tokens_before": 99, "tokens_after": after})]
        );
    }

    #[test]
    fn a_short_conversation_is_not_compacted_and_nothing_is_sent() {
        let mut t = agent(vec![answer("one"), answer("two")]);
        t.turn("a");
        t.turn("b");
        let mut outcome = super::TurnOutcome::default();
        let compacted = t
            .agent
            .compact_now(&mut Recorder::default(), &mut outcome, 5);
        assert!(matches!(compacted, Ok(false)));
        assert_eq!((outcome.api_calls, t.sent().len()), (0, 2));
    }

    #[test]
    fn a_turn_over_the_trigger_compacts_first_and_a_failed_summary_falls_back() {
        let big = |c: char| c.to_string().repeat(50_000);
        let mut t = agent_with(
            SMALL_WINDOW,
            vec![
                answer("a1"),
                answer("a2"),
                answer("a3"),
                answer("a4"),
                answer("<think>only thinking</think>  "),
                answer("a5"),
            ],
            |_| {},
        );
        for q in ['p', 'q', 'r', 's'] {
            let (outcome, heard) = t.turn(&big(q));
            assert_eq!(outcome.api_calls, 1);
            assert!(heard.completed().iter().all(|i| i["type"] != "compaction"));
        }
        let (outcome, heard) = t.turn(&big('t'));
        assert_eq!(outcome.error, None);
        assert_eq!(outcome.answer.as_deref(), Some("a5"));
        assert_eq!(outcome.api_calls, 2);
        assert_eq!(heard.completed()[0]["type"], "compaction");
        let line = |c: char| big(c).chars().take(160).collect::<String>();
        let fallback = format!(
            "## Earlier turns (the summary could not be generated)\n- assistant: a2\n- user: {}\n- assistant: a3\n- user: {}",
            line('r'),
            line('s')
        );
        // The head ends with a question and the tail starts with an answer: the summary
        // joins that answer, so that the roles still alternate.
        let summary = &t.agent.messages[3];
        assert!(summary.content.contains(&fallback), "{}", summary.content);
        assert!(
            summary
                .content
                .starts_with(crate::agent::compact::PRIOR_CONTEXT)
        );
        assert!(summary.content.ends_with("---\n\na4"));
        let live = t.live();
        assert_eq!(live.len(), 6);
        assert_eq!(live[3].0, "assistant");
        assert_eq!(live[4], ("user".into(), big('t')));
        assert_eq!(live[5], ("assistant".into(), "a5".into()));
        let short = |v: Vec<(String, String)>| -> Vec<(String, usize)> {
            v.into_iter().map(|(r, c)| (r, c.len())).collect()
        };
        assert_eq!(short(t.stored()), short(live));
    }

    #[test]
    fn a_rotating_compaction_goes_on_in_a_child_session() {
        let mut t = after_four_big_turns(
            "model: {context_length: 80000}\ncompression: {in_place: false}\n",
            "Sum.",
            |_| {},
        );
        let parent = t.agent.session_id.clone();
        let mut heard = Recorder::default();
        let compacted = t
            .agent
            .compact_now(&mut heard, &mut super::TurnOutcome::default(), 1_000);
        assert!(matches!(compacted, Ok(true)));
        let child = t.agent.session_id.clone();
        assert_ne!(child, parent);
        assert_eq!(t.column("parent_session_id"), json!(parent));
        assert_eq!(t.stored(), t.live());
        assert_eq!(t.stored().len(), 6);
        let ended = crate::sessions::live::head(&t.agent.db, &parent)
            .ok()
            .flatten()
            .and_then(|h| h.end_reason);
        assert_eq!(ended.as_deref(), Some("compression"));
        let item = &heard.completed()[0];
        assert_eq!(item["session_id"], json!(child));
        assert_eq!(item["parent_session_id"], json!(parent));
        assert_eq!(item["tokens_before"], 1_000);
    }

    const NUDGES: &str = "memory:\n  nudge_interval: 2\nskills:\n  creation_nudge_interval: 2\n";

    #[test]
    fn a_memory_review_is_due_every_second_turn_unless_memory_was_written() {
        let note = r#"{"action": "add", "target": "memory", "content": "Uses tabs."}"#;
        let mut t = agent_with(
            NUDGES,
            vec![
                answer("1"),
                answer("2"),
                tool_call("memory", note),
                answer("3"),
                answer("4"),
                answer("5"),
            ],
            |_| {},
        );
        let due: Vec<bool> = (0..5)
            .map(|i| t.turn(&format!("q{i}")).0.review.memory)
            .collect();
        assert_eq!(due, [false, true, false, false, true]);
    }

    #[test]
    fn a_skill_review_is_due_after_two_tool_rounds_unless_skills_were_managed() {
        let list = || tool_call("skills_list", "{}");
        let manage = || tool_call("skill_manage", r#"{"action": "delete", "name": "ghost"}"#);
        let mut t = agent_with(
            NUDGES,
            vec![
                list(),
                list(),
                answer("a"),
                list(),
                manage(),
                answer("b"),
                list(),
                list(),
                answer("c"),
            ],
            |_| {},
        );
        let due: Vec<bool> = (0..3)
            .map(|i| t.turn(&format!("q{i}")).0.review.skills)
            .collect();
        // The second turn's rounds were reset by skill_manage: the third needs two of its own.
        assert_eq!(due, [true, false, true]);
    }

    #[test]
    fn a_retried_call_is_reported_to_the_observer() {
        let busy = || {
            Err(LlmError::Http {
                status: 503,
                message: "busy".into(),
                retry_after: None,
            })
        };
        let mut t = agent(vec![busy(), answer("made it")]);
        let (outcome, heard) = t.turn("hi");
        assert_eq!(outcome.answer.as_deref(), Some("made it"));
        let retries: Vec<&Value> = heard
            .events
            .iter()
            .filter(|e| e["event"] == "retry")
            .collect();
        assert_eq!(
            retries,
            [&json!({"event": "retry", "attempt": 1, "of": 3, "error": "HTTP 503: busy"})]
        );
    }

    /// Twenty lines of 2,000 characters: a read_file result of about 40,000 characters.
    fn wide_file(t: &crate::agent::testing::TestAgent, name: &str) {
        let line = format!("{}\n", name.repeat(2000));
        let _ = std::fs::write(t.work().join(name), line.repeat(20));
    }

    fn read(name: &str) -> Result<Completion, LlmError> {
        tool_call("read_file", &json!({"path": name}).to_string())
    }

    fn with_prompt(
        mut reply: Result<Completion, LlmError>,
        prompt: u64,
    ) -> Result<Completion, LlmError> {
        if let Ok(done) = &mut reply {
            done.usage = Some(Usage {
                prompt,
                ..Usage::default()
            });
        }
        reply
    }

    #[test]
    fn a_turn_compacts_between_calls_when_tool_results_push_it_over() {
        let big = |c: char| c.to_string().repeat(50_000);
        let mut t = agent_with(
            SMALL_WINDOW,
            vec![
                answer("a1"),
                answer("a2"),
                answer("a3"),
                read("f"),
                read("g"),
                answer("The summary."),
                answer("done"),
            ],
            |_| {},
        );
        for name in ["f", "g"] {
            let line = format!("{}\n", name.repeat(2000));
            let _ = std::fs::write(t.work().join(name), line.repeat(30));
        }
        for q in ['p', 'q', 'r'] {
            t.turn(&big(q));
        }
        let (outcome, heard) = t.turn("now read");
        assert_eq!(outcome.error, None);
        assert_eq!(outcome.answer.as_deref(), Some("done"));
        // read f, read g, the summary, the answer: over the trigger only after g's result.
        assert_eq!(outcome.api_calls, 4);
        let compactions: Vec<Value> = heard
            .completed()
            .into_iter()
            .filter(|i| i["type"] == "compaction")
            .collect();
        assert_eq!(compactions.len(), 1);
        let sent = t.sent();
        let summary_call = &sent[5];
        assert!(summary_call.get("tools").is_none());
        let last = sent[6]["messages"].to_string();
        assert!(
            last.contains("[CONTEXT COMPACTION"),
            "{}",
            &last[..200.min(last.len())]
        );
    }

    #[test]
    fn the_last_reported_prompt_size_can_trigger_the_next_turns_compaction() {
        // Three tool rounds of ~40,000 characters: about 33,000 tokens, well under the
        // 64,000 trigger, unless the endpoint said the prompt was bigger.
        let run = |sizes: [u64; 3]| {
            let mut t = agent_with(
                SMALL_WINDOW,
                vec![
                    with_prompt(read("a"), sizes[0]),
                    with_prompt(read("b"), sizes[1]),
                    with_prompt(read("c"), sizes[2]),
                    answer("read"),
                    answer("The summary."),
                    answer("next"),
                ],
                |_| {},
            );
            for name in ["a", "b", "c"] {
                wide_file(&t, name);
            }
            t.turn("read them");
            let (outcome, heard) = t.turn("and now?");
            let compacted = heard.completed().iter().any(|i| i["type"] == "compaction");
            (compacted, outcome.api_calls)
        };
        assert_eq!(run([0, 0, 0]), (false, 1));
        assert_eq!(run([0, 0, 70_000]), (true, 2));
        // A later report of 0 (no usage figure) keeps the last real one.
        assert_eq!(run([0, 70_000, 0]), (true, 2));
        assert_eq!(run([0, 60_000, 0]), (false, 1));
    }

    #[test]
    fn the_estimate_counts_prompt_ephemeral_messages_and_schemas() {
        let mut plain = agent(vec![answer("ok")]);
        plain.turn("hello");
        let mut extra = agent_with("", vec![answer("ok")], |p| p.ephemeral = "e".repeat(400));
        extra.turn("hello");
        let a = plain.agent.estimate_request_tokens(&[]);
        let b = extra.agent.estimate_request_tokens(&[]);
        assert_eq!(b - a, 100);
        let with_more = plain
            .agent
            .estimate_request_tokens(&[crate::llm::Message::user("x".repeat(40))]);
        assert_eq!(with_more - a, 10);
    }

    #[test]
    fn calls_of_one_tool_with_different_arguments_all_run() {
        let mut t = agent(vec![
            calls(&[
                ("c1", "skills_list", "{}"),
                ("c2", "skills_list", r#"{"category": "ops"}"#),
            ]),
            answer("both"),
        ]);
        t.turn("list");
        assert_eq!(t.agent.messages[1].tool_calls.len(), 2);
        let results = t
            .agent
            .messages
            .iter()
            .filter(|m| m.tool_call_id.is_some())
            .count();
        assert_eq!(results, 2);
    }

    #[test]
    fn a_failed_memory_call_does_not_put_off_the_memory_review() {
        let bad = r#"{"action": "remove", "target": "memory", "old_text": "nothing like this"}"#;
        let mut t = agent_with(
            NUDGES,
            vec![tool_call("memory", bad), answer("1"), answer("2")],
            |_| {},
        );
        let due: Vec<bool> = (0..2)
            .map(|i| t.turn(&format!("q{i}")).0.review.memory)
            .collect();
        assert_eq!(due, [false, true]);
    }

    #[test]
    fn with_compression_off_nothing_is_compacted() {
        let big = |c: char| c.to_string().repeat(50_000);
        let mut t = agent_with(
            &format!("{SMALL_WINDOW}compression: {{enabled: false}}\n"),
            vec![
                answer("a1"),
                answer("a2"),
                answer("a3"),
                answer("a4"),
                answer("a5"),
            ],
            |_| {},
        );
        for q in ['p', 'q', 'r', 's', 't'] {
            let (outcome, heard) = t.turn(&big(q));
            assert_eq!(outcome.api_calls, 1);
            assert!(heard.completed().iter().all(|i| i["type"] != "compaction"));
        }
        assert_eq!(t.agent.messages.len(), 10);
    }

    #[test]
    fn a_request_exactly_at_the_trigger_is_not_compacted() {
        let big = |c: char| c.to_string().repeat(40_000);
        let mut t = agent_with(
            SMALL_WINDOW,
            vec![
                answer("a1"),
                answer("a2"),
                answer("a3"),
                answer("a4"),
                answer("a5"),
                answer("a6"),
            ],
            |_| {},
        );
        for q in ['p', 'q', 'r', 's'] {
            t.turn(&big(q));
        }
        // Pad the ephemeral text until the next request is exactly 64,000 tokens (256,000
        // characters): the largest padding that still estimates to the trigger.
        let question = crate::llm::Message::user(big('t'));
        let trigger = t.agent.trigger();
        let unpadded = t
            .agent
            .estimate_request_tokens(std::slice::from_ref(&question));
        let from = ((trigger - unpadded) * 4) as usize;
        let mut pad = 0;
        for n in from.saturating_sub(8)..from + 8 {
            t.agent.ephemeral = "e".repeat(n);
            if t.agent
                .estimate_request_tokens(std::slice::from_ref(&question))
                == trigger
            {
                pad = n;
            }
        }
        assert!(pad > 0);
        t.agent.ephemeral = "e".repeat(pad);
        let (outcome, heard) = t.turn(&big('t'));
        assert_eq!(outcome.answer.as_deref(), Some("a5"));
        assert!(heard.completed().iter().all(|i| i["type"] != "compaction"));
        // One character more and the next turn compacts (a plan exists).
        t.agent.ephemeral.push('e');
        let (outcome, heard) = t.turn("u");
        assert!(heard.completed().iter().any(|i| i["type"] == "compaction"));
        assert_eq!(outcome.api_calls, 2);
    }
}
