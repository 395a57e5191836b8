//! Words as FTS5's `unicode61` tokenizer cuts them, for PostgreSQL: the store's `fts`
//! tsvector is built from the document [`document`] writes (the words, case-folded and
//! without diacritics, joined by spaces, indexed with the `simple` configuration), and
//! [`tsquery`] turns a sanitised FTS5 query into the `to_tsquery('simple', …)` text that
//! matches the same messages.
//!
//! PostgreSQL's default parser keeps `node.js` or `snake_case` as one word, so `node` would
//! miss them; cutting the words here (letters and digits only, as unicode61 does) keeps the
//! store's matches those of `messages_fts`. The CJK side uses the bigram tokens of
//! [`crate::sessions::cjk`] in a second tsvector.

use unicode_normalization::char::{decompose_canonical, is_combining_mark};

use crate::sessions::cjk;

/// The longest document sent for one message: PostgreSQL refuses a tsvector over 1 MB, and
/// words past this point of a huge tool output are left out of the store's index.
pub const MAX_DOCUMENT_BYTES: usize = 400_000;

/// A character that belongs to a word (unicode61's letter and number categories).
pub fn is_word_char(ch: char) -> bool {
    ch.is_alphanumeric()
}

/// One word of `text`: its folded form and its byte range in `text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    pub folded: String,
    pub start: usize,
    pub end: usize,
}

/// unicode61's folding: lower case, diacritics removed.
pub fn fold_into(out: &mut String, word: &str) {
    for ch in word.chars() {
        for lower in ch.to_lowercase() {
            if lower.is_ascii() {
                out.push(lower);
            } else {
                decompose_canonical(lower, |c| {
                    if !is_combining_mark(c) {
                        out.push(c);
                    }
                });
            }
        }
    }
}

/// The words of `text` in order.
pub fn words(text: &str) -> Vec<Word> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, ch) in text.char_indices() {
        match (is_word_char(ch), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push(word(text, s, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(word(text, s, text.len()));
    }
    out
}

fn word(text: &str, start: usize, end: usize) -> Word {
    let mut folded = String::new();
    fold_into(&mut folded, &text[start..end]);
    Word { folded, start, end }
}

/// The `fts` document of a message's indexed text: its folded words joined by spaces, at
/// most [`MAX_DOCUMENT_BYTES`].
pub fn document(text: &str) -> String {
    let mut doc = String::with_capacity(text.len().min(MAX_DOCUMENT_BYTES));
    let mut in_word = false;
    for ch in text.chars() {
        if is_word_char(ch) {
            if !in_word && !doc.is_empty() {
                doc.push(' ');
            }
            in_word = true;
            let mut buf = [0u8; 4];
            fold_into(&mut doc, ch.encode_utf8(&mut buf));
        } else {
            if in_word && doc.len() >= MAX_DOCUMENT_BYTES {
                break;
            }
            in_word = false;
        }
    }
    doc
}

/// The `cjk` document: the bigram tokens of [`cjk::document`], or `None` without CJK.
pub fn cjk_document(text: &str) -> Option<String> {
    let mut doc = cjk::document(text)?;
    if doc.len() > MAX_DOCUMENT_BYTES {
        let mut cut = MAX_DOCUMENT_BYTES;
        while !doc.is_char_boundary(cut) {
            cut -= 1;
        }
        doc.truncate(cut);
        if let Some(space) = doc.rfind(' ') {
            doc.truncate(space);
        }
    }
    Some(doc)
}

/// Which tsvector a query is cut for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cut {
    /// unicode61 words, against `fts`.
    Words,
    /// CJK bigrams, against `cjk`.
    Bigrams,
}

/// The translation of a sanitised FTS5 query: the tsquery text, and the folded terms a
/// snippet highlights (prefix terms end in `*`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Translated {
    pub tsquery: String,
    pub terms: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Phrase { text: String, prefix: bool },
    And,
    Or,
    Not,
}

/// FTS5's lexer, for what the sanitiser leaves: phrases, barewords, `*`, upper-case
/// operators. `None` where FTS5 reports a syntax error (upstream then answers nothing).
fn lex(query: &str) -> Option<Vec<Token>> {
    let mut out = Vec::new();
    let chars: Vec<char> = query.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '"' {
            let mut text = String::new();
            i += 1;
            loop {
                match chars.get(i) {
                    None => return None,
                    Some('"') if chars.get(i + 1) == Some(&'"') => {
                        text.push('"');
                        i += 2;
                    }
                    Some('"') => {
                        i += 1;
                        break;
                    }
                    Some(&ch) => {
                        text.push(ch);
                        i += 1;
                    }
                }
            }
            let prefix = chars.get(i) == Some(&'*');
            if prefix {
                i += 1;
            }
            out.push(Token::Phrase { text, prefix });
        } else if is_bareword_char(c) {
            let start = i;
            while i < chars.len() && is_bareword_char(chars[i]) {
                i += 1;
            }
            let text: String = chars[start..i].iter().collect();
            let prefix = chars.get(i) == Some(&'*');
            if prefix {
                i += 1;
            }
            out.push(match (text.as_str(), prefix) {
                ("AND", false) => Token::And,
                ("OR", false) => Token::Or,
                ("NOT", false) => Token::Not,
                _ => Token::Phrase { text, prefix },
            });
        } else {
            return None;
        }
    }
    Some(out)
}

/// FTS5 barewords: ASCII letters, digits, `_`, and anything beyond ASCII.
fn is_bareword_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '\u{1a}' || !c.is_ascii()
}

/// A tsquery lexeme, quoted.
fn lexeme(word: &str, prefix: bool) -> String {
    let quoted = format!("'{}'", word.replace('\\', "\\\\").replace('\'', "''"));
    if prefix {
        format!("{quoted}:*")
    } else {
        quoted
    }
}

/// The tokens of one phrase under `cut`, folded.
fn phrase_tokens(text: &str, cut: Cut) -> Vec<String> {
    match cut {
        Cut::Words => words(text).into_iter().map(|w| w.folded).collect(),
        Cut::Bigrams => {
            let mut out = Vec::new();
            for run in cjk::runs(text) {
                let chars: Vec<char> = run.text.chars().collect();
                if chars.len() == 1 {
                    out.push(chars[0].to_string());
                } else {
                    out.extend(chars.windows(2).map(|w| w.iter().collect::<String>()));
                }
            }
            out
        }
    }
}

/// One phrase as a tsquery, with the terms it highlights. `None` for a phrase with no
/// token (FTS5 drops it).
fn phrase(text: &str, prefix: bool, cut: Cut, terms: &mut Vec<String>) -> Option<String> {
    let tokens = phrase_tokens(text, cut);
    // A lone CJK character is a prefix of its bigrams, as the local bigram index queries it.
    let single_cjk = cut == Cut::Bigrams && tokens.len() == 1 && tokens[0].chars().count() == 1;
    let n = tokens.len();
    let parts: Vec<String> = tokens
        .iter()
        .enumerate()
        .map(|(i, t)| lexeme(t, (prefix && i + 1 == n) || single_cjk))
        .collect();
    // A snippet marks each phrase match as one span, as FTS5 does.
    match cut {
        Cut::Words if n > 0 => terms.push(format!(
            "{}{}",
            tokens.join(" "),
            if prefix { "*" } else { "" }
        )),
        Cut::Words => {}
        Cut::Bigrams => terms.extend(cjk::runs(text).map(|r| r.text.to_string())),
    }
    match parts.len() {
        0 => None,
        1 => parts.into_iter().next(),
        _ => Some(format!("({})", parts.join(" <-> "))),
    }
}

/// Translates a sanitised FTS5 query. `None` when FTS5 would refuse it (upstream answers
/// nothing) or when no word is left.
pub fn tsquery(query: &str, cut: Cut) -> Option<Translated> {
    let tokens = lex(query)?;
    let mut parser = Parser {
        tokens,
        pos: 0,
        cut,
        terms: Vec::new(),
    };
    let expr = parser.or_expr()?;
    if parser.pos != parser.tokens.len() {
        return None;
    }
    let tsquery = expr?;
    Some(Translated {
        tsquery,
        terms: parser.terms,
    })
}

/// FTS5's precedence: NOT binds tighter than AND (or juxtaposition), AND tighter than OR.
/// Each level yields `Some(None)` when all its phrases were empty.
struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    cut: Cut,
    terms: Vec<String>,
}

type Parsed = Option<Option<String>>;

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn or_expr(&mut self) -> Parsed {
        let mut parts = vec![self.and_expr()?];
        while self.peek() == Some(&Token::Or) {
            self.pos += 1;
            parts.push(self.and_expr()?);
        }
        Some(join(parts, " | "))
    }

    fn and_expr(&mut self) -> Parsed {
        let mut parts = vec![self.not_expr()?];
        loop {
            match self.peek() {
                Some(Token::And) => {
                    self.pos += 1;
                    parts.push(self.not_expr()?);
                }
                Some(Token::Phrase { .. }) => parts.push(self.not_expr()?),
                _ => break,
            }
        }
        Some(join(parts, " & "))
    }

    fn not_expr(&mut self) -> Parsed {
        let mut left = self.primary()?;
        while self.peek() == Some(&Token::Not) {
            self.pos += 1;
            let right = self.primary()?;
            left = match (left, right) {
                (Some(l), Some(r)) => Some(format!("({l} & !{r})")),
                (l, _) => l,
            };
        }
        Some(left)
    }

    fn primary(&mut self) -> Parsed {
        match self.tokens.get(self.pos).cloned() {
            Some(Token::Phrase { text, prefix }) => {
                self.pos += 1;
                Some(phrase(&text, prefix, self.cut, &mut self.terms))
            }
            _ => None,
        }
    }
}

fn join(parts: Vec<Option<String>>, op: &str) -> Option<String> {
    let parts: Vec<String> = parts.into_iter().flatten().collect();
    match parts.len() {
        0 => None,
        1 => parts.into_iter().next(),
        _ => Some(format!("({})", parts.join(op))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(query: &str) -> Option<String> {
        tsquery(query, Cut::Words).map(|t| t.tsquery)
    }

    #[test]
    fn words_split_as_unicode61_and_fold() {
        assert_eq!(
            document("Node.js runs snake_case CAFÉ"),
            "node js runs snake case cafe"
        );
        assert_eq!(document("  a--b  "), "a b");
        assert_eq!(document("我们讨论了数据库 ok"), "我们讨论了数据库 ok");
        let w = words("Hi, Wörld");
        assert_eq!(
            w,
            vec![
                Word {
                    folded: "hi".into(),
                    start: 0,
                    end: 2
                },
                Word {
                    folded: "world".into(),
                    start: 4,
                    end: 10
                },
            ]
        );
    }

    #[test]
    fn queries_keep_fts5_precedence_and_phrases() {
        assert_eq!(q("nginx").as_deref(), Some("'nginx'"));
        assert_eq!(
            q("\"node.js\" OR deno").as_deref(),
            Some("(('node' <-> 'js') | 'deno')")
        );
        assert_eq!(q("a b OR c").as_deref(), Some("(('a' & 'b') | 'c')"));
        assert_eq!(q("a NOT b c").as_deref(), Some("(('a' & !'b') & 'c')"));
        assert_eq!(q("deploy*").as_deref(), Some("'deploy':*"));
        assert_eq!(q("it's"), None);
        assert_eq!(q("a - b"), None);
        assert_eq!(q("NOT x"), None);
        assert_eq!(q("x OR"), None);
        assert_eq!(q("o'neil \"x"), None);
    }

    #[test]
    fn cjk_queries_become_bigram_phrases() {
        let t = tsquery("数据库 OR 好", Cut::Bigrams).expect("query");
        assert_eq!(t.tsquery, "(('数据' <-> '据库') | '好':*)");
        assert_eq!(t.terms, vec!["数据库".to_string(), "好".to_string()]);
    }

    #[test]
    fn long_documents_are_cut_at_a_word() {
        let text = "word ".repeat(100_000);
        let doc = document(&text);
        assert!(doc.len() <= MAX_DOCUMENT_BYTES + 4);
        assert!(doc.ends_with("word"));
    }
}
