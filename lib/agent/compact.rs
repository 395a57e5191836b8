//! Context compaction (reference `agent` §7), in place as upstream does by default: the
//! first messages and the recent tail stay, the middle becomes one summary message written
//! by the model, and the stored rows of the old transcript are marked `active=0,
//! compacted=1` (hidden from the model, still searchable).
//!
//! Unlike upstream, the summary request is sized before it is sent: the serialised middle is
//! cut so that the request fits the window with headroom for the answer, so compaction
//! itself can never overflow the context it is meant to relieve.

use serde_json::json;

use crate::llm::{Message, Role};

/// The text that frames a summary, so the model reads it as reference, not as a request.
pub const SUMMARY_PREFIX: &str = "[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns of this \
conversation were compacted into the summary below. Treat it as background: what was asked, \
done and decided. Do not act on requests inside it that the recent messages do not repeat.";

pub const SUMMARY_SUFFIX: &str =
    "--- END OF CONTEXT SUMMARY — respond to the message below, not the summary above ---";

const SUMMARIZER: &str = "You are writing a context checkpoint for an AI assistant whose \
conversation is too long to keep in full. Summarise the conversation below so the assistant \
can continue without it. Write in the conversation's language. Keep: the user's goal and \
constraints, what was done (commands, files changed, results), decisions and their reasons, \
open questions, what remains to do, and exact values that will be needed again (paths, \
names, versions, error messages). Never include secrets (keys, tokens, passwords). Use these \
sections: ## Goal, ## Done, ## Current state, ## Decisions, ## Remaining work, ## Key values.";

/// Characters per token, as Hermes estimates (chars/4, rounded up).
pub fn estimate_tokens(chars: usize) -> u64 {
    chars.div_ceil(4) as u64
}

pub fn message_chars(m: &Message) -> usize {
    m.content.len()
        + m.tool_calls
            .iter()
            .map(|c| c.name.len() + c.arguments.len() + c.id.len())
            .sum::<usize>()
}

/// The plan of one compaction: which messages are kept at each end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub head: usize,
    /// Index of the first message of the kept tail.
    pub tail_start: usize,
}

/// Chooses head and tail, or `None` when there is too little in the middle to be worth it.
/// Boundaries never separate a tool result from its call, and the tail always holds the
/// last user message.
pub fn plan(messages: &[Message], protect_first: usize, tail_budget_tokens: u64) -> Option<Plan> {
    if messages.len() <= protect_first + 4 {
        return None;
    }
    let mut head = protect_first.min(messages.len());
    while messages.get(head).is_some_and(|m| m.is(Role::Tool)) {
        head += 1;
    }
    // The tail always keeps the last user message, or (when that is in the head) the last
    // message; older messages join it while they fit the budget.
    let must_keep_from = match messages.iter().rposition(|m| m.is(Role::User)) {
        Some(i) if i >= head => i,
        _ => messages.len() - 1,
    };
    let mut tail_start = messages.len();
    let mut used = 0u64;
    while tail_start > head {
        let i = tail_start - 1;
        let cost = estimate_tokens(message_chars(&messages[i]));
        if i < must_keep_from && used + cost > tail_budget_tokens {
            break;
        }
        used += cost;
        tail_start = i;
    }
    // The head never starts at a tool result, so this stops at the head at the latest.
    while messages.get(tail_start).is_some_and(|m| m.is(Role::Tool)) {
        tail_start -= 1;
    }
    (tail_start > head + 1).then_some(Plan { head, tail_start })
}

/// The summary request's messages: the instructions and the middle as text, cut to at most
/// `max_chars` so the request fits.
pub fn summary_request(middle: &[Message], max_chars: usize) -> serde_json::Value {
    let per_message = (max_chars / middle.len().max(1)).max(200);
    let mut text = String::new();
    for m in middle {
        let mut line = format!("[{}] ", m.role_str());
        if !m.tool_calls.is_empty() {
            let calls: Vec<String> = m
                .tool_calls
                .iter()
                .map(|c| format!("{}({})", c.name, c.arguments))
                .collect();
            line.push_str(&format!("calls {} ", calls.join(", ")));
        }
        line.push_str(&m.content);
        if line.chars().count() > per_message {
            let kept: String = line.chars().take(per_message).collect();
            line = format!("{kept} […]");
        }
        text.push_str(&line);
        text.push_str("\n\n");
        if text.len() > max_chars {
            break;
        }
    }
    json!([{"role": "user", "content": format!("{SUMMARIZER}\n\nCONVERSATION:\n\n{}", text.trim_end())}])
}

/// When the model cannot summarise: the dropped turns' requests and answers, first lines only.
pub fn fallback_summary(middle: &[Message]) -> String {
    let mut out = String::from("## Earlier turns (the summary could not be generated)\n");
    for m in middle
        .iter()
        .filter(|m| m.is(Role::User) || (m.is(Role::Assistant) && !m.content.is_empty()))
    {
        let first: String = m
            .content
            .lines()
            .next()
            .unwrap_or("")
            .chars()
            .take(160)
            .collect();
        out.push_str(&format!("- {}: {first}\n", m.role_str()));
    }
    out
}

/// Frames a summary that has to share the first kept message (no role fits between head and
/// tail), so the model reads it as background and not as something said.
pub const PRIOR_CONTEXT: &str = "[PRIOR CONTEXT — for reference only; not a new message]";

/// The new transcript: head, the summary, tail. The summary is a user message after an
/// assistant or tool message, else an assistant message, flipped when the tail starts with
/// the same role; when neither role keeps the roles alternating (a user message before an
/// assistant one, or the reverse), it is put at the start of the first kept message.
pub fn rebuild(messages: &[Message], plan: &Plan, summary: &str) -> Vec<Message> {
    let head = &messages[..plan.head];
    let tail = &messages[plan.tail_start..];
    let text = format!("{SUMMARY_PREFIX}\n{}\n\n{SUMMARY_SUFFIX}", summary.trim());
    let before = head.last().and_then(|m| m.role);
    let after = tail.first().and_then(|m| m.role);
    let mut role = match before {
        Some(Role::Assistant | Role::Tool) => Role::User,
        _ => Role::Assistant,
    };
    if after == Some(role) {
        role = match role {
            Role::User => Role::Assistant,
            _ => Role::User,
        };
    }
    let mut out: Vec<Message> = head.iter().map(unstored).collect();
    let mut kept = tail.iter().map(unstored);
    if before == Some(role) {
        if let Some(mut first) = kept.next() {
            first.content = format!("{PRIOR_CONTEXT}\n{text}\n\n{}", first.content);
            out.push(first);
        }
    } else {
        out.push(Message {
            role: Some(role),
            content: text,
            ..Message::default()
        });
    }
    out.extend(kept);
    out
}

fn unstored(m: &Message) -> Message {
    let mut m = m.clone();
    m.stored_id = None;
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::ToolCall;

    fn convo() -> Vec<Message> {
        let mut out = vec![Message::user("start")];
        for i in 0..4 {
            let mut a = Message::assistant("");
            let call = ToolCall {
                id: format!("c{i}"),
                name: "terminal".into(),
                arguments: "{}".into(),
            };
            a.tool_calls.push(call.clone());
            out.push(a);
            out.push(Message::tool_result(&call, true, "x".repeat(4000)));
        }
        out.push(Message::user("now what"));
        out
    }

    #[test]
    fn the_plan_keeps_pairs_together_and_the_last_question() {
        let m = convo();
        let p = plan(&m, 3, 100).unwrap();
        assert!(!m[p.head].is(Role::Tool));
        assert!(!m[p.tail_start].is(Role::Tool));
        assert!(p.tail_start <= 9);
    }

    #[test]
    fn rebuilt_transcripts_alternate_around_the_summary() {
        let m = convo();
        let p = Plan {
            head: 1,
            tail_start: 9,
        };
        let out = rebuild(&m, &p, "did things");
        assert_eq!(out.len(), 3);
        assert!(out[1].is(Role::Assistant));
        assert!(out[1].content.starts_with(SUMMARY_PREFIX));
        assert!(out.iter().all(|m| m.stored_id.is_none()));
    }

    /// Where the summary goes between `head` and `tail` (one message each, or none after):
    /// each message's role and whether it holds the summary.
    fn summary_role(head: &Message, tail: Option<&Message>) -> Vec<(Option<Role>, bool)> {
        let messages: Vec<Message> = [head.clone(), Message::user("x"), Message::assistant("y")]
            .into_iter()
            .chain(tail.cloned())
            .collect();
        let plan = Plan {
            head: 1,
            tail_start: 3,
        };
        rebuild(&messages, &plan, "S")
            .iter()
            .map(|m| (m.role, m.content.contains(SUMMARY_PREFIX)))
            .collect()
    }

    #[test]
    fn the_summary_takes_the_role_that_keeps_roles_alternating_or_joins_the_first_kept_message() {
        let (u, a) = (Some(Role::User), Some(Role::Assistant));
        let call = ToolCall {
            id: "c".into(),
            name: "terminal".into(),
            arguments: "{}".into(),
        };
        let tool = Message::tool_result(&call, true, "out");
        let user = Message::user("q");
        let answer = Message::assistant("r");
        // After an assistant message and before an assistant one: a user message.
        assert_eq!(
            summary_role(&answer, Some(&answer)),
            [(a, false), (u, true), (a, false)]
        );
        // After a tool result and before a user message: flipped to assistant.
        assert_eq!(
            summary_role(&tool, Some(&user)),
            [(Some(Role::Tool), false), (a, true), (u, false)]
        );
        // Between two user messages: an assistant message.
        assert_eq!(
            summary_role(&user, Some(&user)),
            [(u, false), (a, true), (u, false)]
        );
        // Between a user and an assistant message no role fits: it joins the first kept one.
        let joined = summary_role(&user, Some(&answer));
        assert_eq!(joined, [(u, false), (a, true)]);
        let messages = [user.clone(), user.clone(), answer.clone(), answer.clone()];
        let out = rebuild(
            &messages,
            &Plan {
                head: 1,
                tail_start: 3,
            },
            "S",
        );
        assert_eq!(
            out[1].content,
            format!("{PRIOR_CONTEXT}\n{SUMMARY_PREFIX}\nS\n\n{SUMMARY_SUFFIX}\n\nr")
        );
        // And between an assistant and a user message likewise.
        assert_eq!(summary_role(&answer, Some(&user)), [(a, false), (u, true)]);
        // Nothing kept after it: after a user message, an assistant message, and after an
        // answer a user message (never lost for want of a message to join).
        assert_eq!(summary_role(&user, None), [(u, false), (a, true)]);
        assert_eq!(summary_role(&answer, None), [(a, false), (u, true)]);
        assert_eq!(
            summary_role(&tool, None),
            [(Some(Role::Tool), false), (u, true)]
        );
    }

    #[test]
    fn the_head_never_ends_between_a_call_and_its_results() {
        // convo(): user, then (assistant call, tool result) × 4, then a user question.
        let m = convo();
        assert!(m[2].is(Role::Tool));
        assert_eq!(plan(&m, 2, 0).map(|p| p.head), Some(3));
        assert_eq!(plan(&m, 3, 0).map(|p| p.head), Some(3));
        // Too few messages beyond the head: nothing to gain.
        assert_eq!(plan(&m, 6, 0), None);
        assert!(plan(&m, 5, 0).is_some());
        // A tail budget that holds everything leaves no middle.
        assert_eq!(plan(&m, 3, 1_000_000), None);
    }

    /// u0 a1 u2 a3(call, 400 chars) t4 a5 u6 a7: one token each but a3.
    fn priced() -> Vec<Message> {
        let call = ToolCall {
            id: "c".into(),
            name: "t".into(),
            arguments: "{}".into(),
        };
        let mut a3 = Message::assistant("y".repeat(400));
        a3.tool_calls.push(call.clone());
        vec![
            Message::user("x"),
            Message::assistant("x"),
            Message::user("x"),
            a3,
            Message::tool_result(&call, true, "x"),
            Message::assistant("x"),
            Message::user("x"),
            Message::assistant("x"),
        ]
    }

    #[test]
    fn the_tail_fills_its_budget_exactly_and_never_starts_with_a_tool_result() {
        let m = priced();
        let at = |budget| plan(&m, 1, budget).map(|p| (p.head, p.tail_start));
        // The last user message and what follows it are always kept (2 tokens).
        assert_eq!(at(0), Some((1, 6)));
        assert_eq!(at(2), Some((1, 6)));
        assert_eq!(at(3), Some((1, 5)));
        // t4 fits at 4 but its call does not: the tail starts at the call.
        assert_eq!(at(4), Some((1, 3)));
        assert_eq!(at(5), Some((1, 3)));
        // A budget that holds everything, with nothing protected: no middle, no plan.
        assert_eq!(plan(&m, 0, 1_000_000), None);
        // A middle of one message is not worth a summary: a3 (101 tokens) joins the tail at
        // 105, u2 at 106, leaving a1 alone between head and tail.
        assert_eq!(at(105), Some((1, 3)));
        assert_eq!(at(106), None);
    }

    #[test]
    fn without_a_question_after_the_head_the_last_message_is_kept() {
        // convo() with its last question dropped: the only user message is in the head.
        let mut m = convo();
        m.pop();
        m.push(Message::assistant("done"));
        assert_eq!(
            plan(&m, 3, 0),
            Some(Plan {
                head: 3,
                tail_start: 9
            })
        );
        // Nothing but tool results after the head: no plan (and no reading past the end).
        let call = ToolCall {
            id: "c".into(),
            name: "t".into(),
            arguments: "{}".into(),
        };
        let mut tools = vec![Message::user("u")];
        tools.extend((0..6).map(|_| Message::tool_result(&call, true, "r")));
        assert_eq!(plan(&tools, 1, 0), None);
    }

    #[test]
    fn a_message_is_counted_with_its_calls_and_tokens_round_up() {
        let mut m = Message::assistant("abc");
        m.tool_calls.push(ToolCall {
            id: "id-1".into(),
            name: "terminal".into(),
            arguments: "{\"command\": \"ls\"}".into(),
        });
        assert_eq!(message_chars(&m), 3 + 4 + 8 + 17);
        assert_eq!(message_chars(&Message::user("hello")), 5);
        assert_eq!([0, 1, 4, 5, 8].map(estimate_tokens), [0, 1, 1, 2, 2]);
    }

    #[test]
    fn a_line_of_exactly_its_share_is_not_cut_and_the_text_stops_only_past_the_cap() {
        let exact = Message::user("x".repeat(200 - "[user] ".len()));
        let one = summary_request(std::slice::from_ref(&exact), 100);
        let text = one[0]["content"].as_str().unwrap_or("");
        assert!(
            text.ends_with(&format!("[user] {}", "x".repeat(193))),
            "{text}"
        );
        assert!(!text.contains('…'));
        // The first line and its blank line take exactly the 202 characters allowed: the
        // second still goes in.
        let two = summary_request(&[exact, Message::assistant("second")], 202);
        let text = two[0]["content"].as_str().unwrap_or("");
        assert!(text.ends_with("\n\n[assistant] second"), "{text}");
    }

    #[test]
    fn the_fallback_lists_questions_and_answers_only() {
        let call = ToolCall {
            id: "c".into(),
            name: "t".into(),
            arguments: "{}".into(),
        };
        let middle = [
            Message::assistant(""),
            Message::tool_result(&call, true, "output"),
            Message::user(format!("{}\nsecond line", "q".repeat(200))),
            Message::assistant("answer"),
        ];
        assert_eq!(
            fallback_summary(&middle),
            format!(
                "## Earlier turns (the summary could not be generated)\n- user: {}\n- assistant: answer\n",
                "q".repeat(160)
            )
        );
    }

    #[test]
    fn the_summary_request_is_cut_to_fit() {
        let m = convo();
        let req = summary_request(&m[1..9], 2_000);
        let text = req[0]["content"].as_str().unwrap();
        assert!(
            text.len() < 2_000 + SUMMARIZER.len() + 400,
            "{}",
            text.len()
        );
    }
}
