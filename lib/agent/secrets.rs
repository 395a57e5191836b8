//! Secrets a skill needs (`required_environment_variables`, `setup.collect_secrets`, legacy
//! `prerequisites.env_vars`, read by `skill_view` into `missing_required_environment_variables`):
//! asked for at a terminal without echo (`repl`'s `read_hidden`) and kept in
//! `$HERMES_HOME/.env` (0600, written atomically), where Python Hermes reads them too.

use std::path::Path;

use crate::io::FileError;
use crate::io::atomic::{FileMode, write_atomic};

/// Sets `name=value` in the `.env` file at `path`: the first line for `name` is replaced
/// (with or without `export`), other lines and comments are kept, a new name is appended.
pub fn save_env_var(path: &Path, name: &str, value: &str) -> Result<(), FileError> {
    let existing = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(FileError::new("read", path, e)),
    };
    let line = format!("{name}={}", quote(value));
    let mut replaced = false;
    let mut out: Vec<String> = Vec::new();
    for l in existing.lines() {
        let key = l
            .trim_start()
            .strip_prefix("export ")
            .unwrap_or(l.trim_start());
        if !replaced && key.split('=').next().map(str::trim) == Some(name) && key.contains('=') {
            out.push(line.clone());
            replaced = true;
        } else {
            out.push(l.to_string());
        }
    }
    if !replaced {
        out.push(line);
    }
    let mut text = out.join("\n");
    text.push('\n');
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| FileError::new("create", dir, e))?;
    }
    write_atomic(path, text.as_bytes(), FileMode::Private)
}

/// Single-quoted when the value holds anything a dotenv reader would split on.
fn quote(value: &str) -> String {
    if value.is_empty()
        || value
            .chars()
            .any(|c| c.is_whitespace() || "#'\"\\$`".contains(c))
    {
        format!("'{}'", value.replace('\'', "'\\''"))
    } else {
        value.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_value_is_replaced_in_place_and_a_new_one_appended() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(".env");
        std::fs::write(&p, "# keys\nexport A=1\nB=2\n").unwrap();
        save_env_var(&p, "A", "new value").unwrap();
        save_env_var(&p, "C", "3").unwrap();
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "# keys\nA='new value'\nB=2\nC=3\n"
        );
        assert_eq!(
            std::fs::metadata(&p).unwrap().permissions().mode() & 0o777,
            0o600
        );
        let vars = crate::llm::endpoint::read_dotenv(&p);
        assert_eq!(vars["A"], "new value");
    }

    #[test]
    fn values_are_quoted_only_when_a_reader_would_split_them() {
        assert_eq!(quote("plain-Value_1"), "plain-Value_1");
        assert_eq!(quote(""), "''");
        for tricky in ["a b", "a#b", "a'b", "a\"b", "a\\b", "a$b", "a`b", "a\tb"] {
            assert!(quote(tricky).starts_with('\''), "{tricky:?}");
        }
        assert_eq!(quote("it's"), r"'it'\''s'");
    }

    #[test]
    fn only_the_first_line_of_a_name_is_replaced_and_lookalikes_are_kept() {
        let Ok(dir) = tempfile::tempdir() else {
            panic!("temp dir")
        };
        let p = dir.path().join("sub/.env");
        assert!(save_env_var(&p, "TOKEN", "one").is_ok());
        assert_eq!(
            std::fs::read_to_string(&p).ok().as_deref(),
            Some("TOKEN=one\n")
        );
        std::fs::write(&p, "TOKEN_OLD=x\n  TOKEN = a\nTOKEN=b\nTOKEN\n").unwrap_or_default();
        assert!(save_env_var(&p, "TOKEN", "two").is_ok());
        assert_eq!(
            std::fs::read_to_string(&p).ok().as_deref(),
            Some("TOKEN_OLD=x\nTOKEN=two\nTOKEN=b\nTOKEN\n")
        );
        // A file that is not text is left alone, not replaced by the one new line.
        let binary = dir.path().join("binary.env");
        std::fs::write(&binary, b"KEEP=\xff\n").unwrap_or_default();
        assert!(save_env_var(&binary, "A", "1").is_err());
        assert_eq!(std::fs::read(&binary).ok(), Some(b"KEEP=\xff\n".to_vec()));
        std::fs::create_dir_all(dir.path().join("dir.env")).unwrap_or_default();
        assert!(save_env_var(&dir.path().join("dir.env"), "A", "1").is_err());
    }
}
