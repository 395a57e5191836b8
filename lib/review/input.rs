//! What a review reads: message lines (`role`, `content`, `tool_calls`, `tool_call_id`), a
//! JSON array of them, or one session object with `messages` (what `hermes-index export`
//! writes, one per line for `--batch`). A leading `system` message, or a session's
//! `system_prompt`, is the prompt the chat sent; a review on the same model reuses it.

use serde_json::Value;

use crate::llm::{Message, Role};

/// One conversation to review.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Conversation {
    /// The session it came from, when known.
    pub session_id: Option<String>,
    pub system_prompt: Option<String>,
    pub messages: Vec<Message>,
}

/// A line that is not a message or a session.
#[derive(Debug, thiserror::Error, PartialEq)]
#[error("line {line}: {reason}")]
pub struct InputError {
    pub line: usize,
    pub reason: String,
}

/// Reads one conversation from the text of a file or stdin.
pub fn parse(text: &str) -> Result<Conversation, InputError> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('[')
        && let Ok(Value::Array(items)) = serde_json::from_str::<Value>(trimmed)
    {
        return from_messages(items.iter().enumerate().map(|(i, v)| (i + 1, v)));
    }
    let mut values = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let value: Value = serde_json::from_str(line).map_err(|e| InputError {
            line: i + 1,
            reason: crate::io::jsonl::json_error(&e),
        })?;
        values.push((i + 1, value));
    }
    match values.as_slice() {
        [(line, value)] if value.get("messages").is_some() => session(*line, value),
        _ => from_messages(values.iter().map(|(n, v)| (*n, v))),
    }
}

/// One session object (an export line).
pub fn session(line: usize, value: &Value) -> Result<Conversation, InputError> {
    let Some(rows) = value.get("messages").and_then(Value::as_array) else {
        return Err(InputError {
            line,
            reason: "a session needs a \"messages\" array".into(),
        });
    };
    let mut conversation = from_messages(rows.iter().map(|v| (line, v)))?;
    conversation.session_id = value.get("id").and_then(Value::as_str).map(str::to_string);
    if let Some(prompt) = value
        .get("system_prompt")
        .and_then(Value::as_str)
        .filter(|p| !p.is_empty())
    {
        conversation.system_prompt = Some(prompt.to_string());
    }
    Ok(conversation)
}

fn from_messages<'a>(
    items: impl Iterator<Item = (usize, &'a Value)>,
) -> Result<Conversation, InputError> {
    let mut conversation = Conversation::default();
    for (line, value) in items {
        let message = Message::from_line(value).map_err(|reason| InputError { line, reason })?;
        if message.is(Role::System) {
            // Only a leading system message is the chat's prompt; later ones are not
            // conversation and are left out.
            if conversation.messages.is_empty() && conversation.system_prompt.is_none() {
                conversation.system_prompt = Some(message.content);
            }
            continue;
        }
        conversation.messages.push(message);
    }
    Ok(conversation)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_lines_with_a_leading_system_prompt() {
        let c = parse(
            "{\"role\":\"system\",\"content\":\"S\"}\n{\"role\":\"user\",\"content\":\"hi\"}\n\n{\"role\":\"assistant\",\"content\":\"yo\"}\n",
        )
        .unwrap();
        assert_eq!(c.system_prompt.as_deref(), Some("S"));
        assert_eq!(c.messages.len(), 2);
    }

    #[test]
    fn an_exported_session() {
        let c = parse(r#"{"id":"s1","system_prompt":"P","messages":[{"role":"user","content":"q","tool_calls":null},{"role":"assistant","content":"a","tool_calls":"[{\"id\": \"c\", \"type\": \"function\", \"function\": {\"name\": \"memory\", \"arguments\": \"{}\"}}]"}]}"#).unwrap();
        assert_eq!(c.session_id.as_deref(), Some("s1"));
        assert_eq!(c.system_prompt.as_deref(), Some("P"));
        assert_eq!(c.messages[1].tool_calls[0].name, "memory");
    }

    #[test]
    fn a_bad_line_names_its_number() {
        let e = parse("{\"role\":\"user\",\"content\":\"q\"}\nnope\n").unwrap_err();
        assert_eq!(e.line, 2);
        let e = parse("{\"role\":\"robot\"}\n{\"role\":\"user\"}").unwrap_err();
        assert_eq!(e.line, 1);
    }

    #[test]
    fn a_json_array_of_messages_names_a_bad_item_by_its_place() {
        let c = parse(r#" [{"role":"user","content":"q"},{"role":"assistant","content":"a"}]"#)
            .expect("an array of messages");
        assert_eq!(
            c,
            Conversation {
                session_id: None,
                system_prompt: None,
                messages: vec![Message::user("q"), Message::assistant("a")],
            }
        );
        let e = parse(r#"[{"role":"user","content":"q"},{"role":"robot"}]"#).unwrap_err();
        assert_eq!(e.line, 2);
    }

    #[test]
    fn a_single_message_line_is_a_conversation_not_a_session() {
        let c = parse("{\"role\":\"user\",\"content\":\"only\"}\n").expect("one message");
        assert_eq!(c.messages, vec![Message::user("only")]);
        assert_eq!(c.session_id, None);
    }

    #[test]
    fn only_a_leading_system_message_is_the_prompt_and_later_ones_are_dropped() {
        let c = parse(concat!(
            "{\"role\":\"user\",\"content\":\"q\"}\n",
            "{\"role\":\"system\",\"content\":\"late\"}\n",
            "{\"role\":\"assistant\",\"content\":\"a\"}\n",
        ))
        .expect("parses");
        assert_eq!(c.system_prompt, None);
        assert_eq!(
            c.messages,
            vec![Message::user("q"), Message::assistant("a")]
        );
        let c = parse(concat!(
            "{\"role\":\"system\",\"content\":\"first\"}\n",
            "{\"role\":\"system\",\"content\":\"second\"}\n",
            "{\"role\":\"user\",\"content\":\"q\"}\n",
        ))
        .expect("parses");
        assert_eq!(c.system_prompt.as_deref(), Some("first"));
        assert_eq!(c.messages, vec![Message::user("q")]);
    }

    #[test]
    fn a_session_needs_its_messages_and_an_empty_prompt_is_none() {
        let e = session(7, &serde_json::json!({"id": "s", "messages": "no"})).unwrap_err();
        assert_eq!(
            e,
            InputError {
                line: 7,
                reason: "a session needs a \"messages\" array".into()
            }
        );
        let c = session(1, &serde_json::json!({"messages": [], "system_prompt": ""}))
            .expect("a session");
        assert_eq!(c, Conversation::default());
    }
}
