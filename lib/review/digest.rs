//! The digest a review on another model gets instead of the whole conversation (reference
//! `loop` §1.5): older turns as one line each, the last 24 messages verbatim. Sending a
//! long history cold to a second model costs its full price with no prompt cache to help.
//!
//! Upstream can send two user messages in a row (the digest, then a kept tail that starts
//! with a user turn), which strict providers refuse; here the digest is then merged into that
//! first kept user message, so roles always alternate (docs/decisions.md).

use crate::llm::{Message, Role};

/// Messages kept verbatim at the end.
pub const TAIL: usize = 24;

pub const HEADER: &str = "[Earlier conversation digest — older turns summarised to bound the \
review's cold-write cost on the routed aux model. Recent turns follow verbatim below.]";

/// The conversation as a routed review sends it.
pub fn digest(messages: &[Message]) -> Vec<Message> {
    let mut tail = TAIL;
    if messages.len() <= tail {
        return messages.to_vec();
    }
    // A kept tail never opens with a tool result whose call was cut off.
    while messages[messages.len() - tail].is(Role::Tool) {
        tail += 1;
        if messages.len() <= tail {
            return messages.to_vec();
        }
    }
    let split = messages.len() - tail;
    let mut lines = Vec::new();
    for m in &messages[..split] {
        let text = m.content.trim().replace('\n', " ");
        match m.role {
            Some(Role::User) if !text.is_empty() => {
                lines.push(format!("USER: {}", cut(&text, 300)));
            }
            Some(Role::Assistant) => {
                if !m.tool_calls.is_empty() {
                    let names: Vec<&str> = m
                        .tool_calls
                        .iter()
                        .map(|c| {
                            if c.name.is_empty() {
                                "?"
                            } else {
                                c.name.as_str()
                            }
                        })
                        .collect();
                    lines.push(format!("ASSISTANT[tools: {}]", names.join(", ")));
                }
                if !text.is_empty() {
                    lines.push(format!("ASSISTANT: {}", cut(&text, 200)));
                }
            }
            _ => {}
        }
    }
    let summary = format!("{HEADER}\n{}", lines.join("\n"));
    let mut out = Vec::with_capacity(tail + 1);
    let kept = &messages[split..];
    if kept[0].is(Role::User) {
        let mut first = kept[0].clone();
        first.content = format!("{summary}\n\n{}", first.content);
        first.stored_id = None;
        out.push(first);
        out.extend(kept[1..].iter().cloned());
    } else {
        out.push(Message::user(summary));
        out.extend(kept.iter().cloned());
    }
    out
}

fn cut(text: &str, chars: usize) -> String {
    text.chars().take(chars).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::ToolCall;

    fn convo(n: usize) -> Vec<Message> {
        (0..n)
            .map(|i| {
                if i % 2 == 0 {
                    Message::user(format!("question {i}\nsecond line"))
                } else {
                    Message::assistant(format!("answer {i}"))
                }
            })
            .collect()
    }

    #[test]
    fn short_conversations_go_whole() {
        assert_eq!(digest(&convo(24)), convo(24));
    }

    #[test]
    fn a_tail_opening_with_a_user_turn_carries_the_digest_itself() {
        let out = digest(&convo(28));
        assert_eq!(out.len(), 24);
        assert!(out[0].is(Role::User));
        assert_eq!(
            out[0].content,
            format!(
                "{HEADER}\nUSER: question 0 second line\nASSISTANT: answer 1\nUSER: question 2 second line\nASSISTANT: answer 3\n\nquestion 4\nsecond line"
            )
        );
        assert!(out.windows(2).all(|w| w[0].role != w[1].role));
    }

    #[test]
    fn a_tail_never_opens_with_an_orphan_tool_result() {
        let mut msgs = convo(10);
        let mut call = Message::assistant("");
        call.tool_calls.push(ToolCall {
            id: "c1".into(),
            name: "terminal".into(),
            arguments: "{}".into(),
        });
        msgs.push(call);
        for _ in 0..24 {
            msgs.push(Message {
                role: Some(Role::Tool),
                content: "ok".into(),
                tool_call_id: Some("c1".into()),
                ..Message::default()
            });
        }
        let out = digest(&msgs);
        assert_eq!(out.len(), 26);
        assert!(out[1].is(Role::Assistant));
        assert!(out[0].content.ends_with("ASSISTANT: answer 9"));
    }

    #[test]
    fn older_turns_are_cut_to_a_line_each_and_empty_ones_left_out() {
        let mut msgs = vec![
            Message::user("   "),
            Message::assistant(""),
            Message::user(format!("{}tail", "q".repeat(300))),
        ];
        let mut call = Message::assistant(format!("{}tail", "a".repeat(200)));
        for name in ["terminal", ""] {
            call.tool_calls.push(ToolCall {
                id: "c".into(),
                name: name.into(),
                arguments: "{}".into(),
            });
        }
        msgs.push(call);
        // The kept tail opens with an assistant turn: the digest is a user turn of its own.
        msgs.extend(convo(25).into_iter().skip(1));
        let out = digest(&msgs);
        assert_eq!(out.len(), 25);
        assert_eq!(
            out[0],
            Message::user(format!(
                "{HEADER}\nUSER: {}\nASSISTANT[tools: terminal, ?]\nASSISTANT: {}",
                "q".repeat(300),
                "a".repeat(200)
            ))
        );
        assert_eq!(out[1..], convo(25)[1..]);
    }
}
