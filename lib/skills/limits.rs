//! The limits Hermes 0.19.0 enforces on skills (reference `skills` §2.2-2.3).

use std::sync::LazyLock;

use regex::Regex;

/// Longest skill name and category `skill_manage` accepts.
pub const MAX_NAME_CHARS: usize = 64;
/// Longest description `skill_manage` accepts, in characters of `str(description)`.
pub const MAX_DESCRIPTION_CHARS: usize = 1024;
/// Largest SKILL.md (or support text file) `skill_manage` writes, in characters.
pub const MAX_SKILL_CHARS: usize = 100_000;
/// Largest support file `skill_manage` writes, in UTF-8 bytes.
pub const MAX_SUPPORT_FILE_BYTES: usize = 1_048_576;
/// The system-prompt skill index cuts descriptions longer than this to 57 characters + `...`.
pub const PROMPT_DESCRIPTION_CHARS: usize = 60;
/// `skills_list` parses frontmatter from the first this-many characters of SKILL.md only.
pub const LIST_PREFIX_CHARS: usize = 4000;
/// `skills_list` cuts descriptions longer than this to 1021 characters + `...`.
pub const LIST_DESCRIPTION_CHARS: usize = 1024;

/// `skill_manage`'s name rule (`VALID_NAME_RE`): lowercase letters, digits, `.`, `_`, `-`,
/// starting with a letter or digit.
pub static HERMES_NAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[a-z0-9][a-z0-9._-]*$").expect("static regex"));

/// The agentskills.io rule: letters, digits and single hyphens, no leading or trailing
/// hyphen. Letters are any script's, as the format's reference validator allows (`数据-分析`);
/// that they are lowercase is checked beside the pattern ([`agentskills_name_ok`]).
pub static AGENTSKILLS_NAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)*$").expect("static regex"));

/// A name the agentskills.io format accepts: the pattern, and no uppercase letter.
pub fn agentskills_name_ok(name: &str) -> bool {
    AGENTSKILLS_NAME.is_match(name) && !name.chars().any(char::is_uppercase)
}

/// The support directories of a skill, where `skill_manage` may write files.
pub const SUPPORT_DIRS: [&str; 4] = ["assets", "references", "scripts", "templates"];

/// How Hermes cuts a description for the prompt index: over 60 characters → 57 + `...`.
pub fn prompt_description(description: &str) -> String {
    let trimmed = description.trim().trim_matches(['\'', '"']);
    truncate_chars(trimmed, PROMPT_DESCRIPTION_CHARS, 57)
}

/// `text` if it has at most `max` characters, else its first `keep` characters and `...`.
pub fn truncate_chars(text: &str, max: usize, keep: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out: String = text.chars().take(keep).collect();
    out.push_str("...");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_cut_at_sixty() {
        let exact = "x".repeat(60);
        assert_eq!(prompt_description(&exact), exact);
        let long = "y".repeat(61);
        assert_eq!(prompt_description(&long), format!("{}...", "y".repeat(57)));
        assert_eq!(prompt_description(" 'quoted' "), "quoted");
    }

    #[test]
    fn name_rules() {
        assert!(HERMES_NAME.is_match("my_skill.v2"));
        assert!(!HERMES_NAME.is_match("-lead"));
        assert!(AGENTSKILLS_NAME.is_match("pdf-tools"));
        assert!(!AGENTSKILLS_NAME.is_match("pdf--tools"));
        assert!(!AGENTSKILLS_NAME.is_match("pdf_tools"));
        assert!(agentskills_name_ok("数据-分析"));
        assert!(agentskills_name_ok("café-tools"));
        assert!(!agentskills_name_ok("Pdf-tools"));
        assert!(!agentskills_name_ok("-pdf"));
    }
}
