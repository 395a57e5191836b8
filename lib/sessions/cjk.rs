//! The CJK bigram tokeniser behind `messages_fts_cjk`, shared by the indexer and by every
//! query against that index, so a query is always cut the way the text was.
//!
//! Neither upstream table finds two-character CJK words: `unicode61` keeps a whole run of
//! ideographs as one token (`我们讨论了数据库` is one word to it) and `trigram` needs three
//! characters. We index every run of CJK letters as overlapping two-character tokens plus
//! the run's last character alone:
//!
//! ```text
//! 广西桂林漓江  →  广西 西桂 桂林 林漓 漓江 江
//! 数据库        →  数据 据库 库
//! 好            →  好
//! ```
//!
//! A query run of n ≥ 2 characters becomes the phrase of its n-1 bigrams, which matches
//! exactly the rows containing it as a substring (adjacent bigrams only come from adjacent
//! characters of one run; the trailing single character sits between runs). A one-character
//! query becomes the prefix query `"X" *`, which finds X as the first character of a bigram
//! or as a run's last character, so every occurrence.
//!
//! The index document is the tokens joined by spaces, stored in an FTS5 table with the
//! built-in `ascii` tokenizer: it splits on ASCII spaces and keeps every non-ASCII
//! character, so each of our tokens is exactly one FTS5 token, on any SQLite with FTS5.

/// Bump when the tokens change: an index built by another version is rebuilt.
pub const TOKENIZER_VERSION: i64 = 1;

/// Python Hermes's `_is_cjk_codepoint`: the ranges it routes to the trigram and LIKE paths.
pub fn is_cjk(ch: char) -> bool {
    matches!(ch as u32,
        0x4E00..=0x9FFF      // CJK Unified Ideographs
        | 0x3400..=0x4DBF    // Extension A
        | 0x20000..=0x2A6DF  // Extension B
        | 0x3000..=0x303F    // CJK symbols and punctuation
        | 0x3040..=0x309F    // Hiragana
        | 0x30A0..=0x30FF    // Katakana
        | 0xAC00..=0xD7AF) // Hangul syllables
}

/// Whether `text` holds any character of [`is_cjk`].
pub fn contains_cjk(text: &str) -> bool {
    // Every CJK range above encodes to a UTF-8 lead byte of 0xE3..=0xED or 0xF0; most text
    // has none, and a byte scan skips it at memory speed.
    text.as_bytes()
        .iter()
        .any(|&b| (0xE3..=0xED).contains(&b) || b == 0xF0)
        && text.chars().any(is_cjk)
}

/// The number of characters of [`is_cjk`] in `text` (Python's `_count_cjk`).
pub fn count_cjk(text: &str) -> usize {
    text.chars().filter(|&c| is_cjk(c)).count()
}

/// A character that belongs to an indexed run: CJK by [`is_cjk`] and a letter or number,
/// so ideographs, kana (with `ー` and `々`), Hangul syllables and `〇` are in, while the
/// ideographic space and punctuation (`、。「」・`) end a run.
pub fn is_token_char(ch: char) -> bool {
    is_cjk(ch) && ch.is_alphanumeric()
}

/// One maximal run of [`is_token_char`] characters, with its byte range in the source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run<'a> {
    pub start: usize,
    pub text: &'a str,
}

impl Run<'_> {
    pub fn end(&self) -> usize {
        self.start + self.text.len()
    }
}

/// The runs of CJK letters in `text`, in order.
pub fn runs(text: &str) -> Runs<'_> {
    Runs { text, pos: 0 }
}

/// Iterator returned by [`runs`].
pub struct Runs<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Iterator for Runs<'a> {
    type Item = Run<'a>;

    fn next(&mut self) -> Option<Run<'a>> {
        let rest = &self.text[self.pos..];
        let (offset, _) = rest.char_indices().find(|&(_, c)| is_token_char(c))?;
        let start = self.pos + offset;
        let len = self.text[start..]
            .char_indices()
            .find(|&(_, c)| !is_token_char(c))
            .map_or(self.text.len() - start, |(i, _)| i);
        self.pos = start + len;
        Some(Run {
            start,
            text: &self.text[start..start + len],
        })
    }
}

/// One index token and the bytes of the source text it stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token<'a> {
    pub text: &'a str,
    pub start: usize,
    pub end: usize,
}

/// The tokens of `text` in index order: for each run, its bigrams, then its last character.
/// Byte offsets point into `text`, so a caller can highlight what a token matched.
pub fn tokens(text: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    for run in runs(text) {
        let chars: Vec<(usize, char)> = run.text.char_indices().collect();
        for pair in chars.windows(2) {
            let (a, _) = pair[0];
            let (b, c2) = pair[1];
            let end = b + c2.len_utf8();
            out.push(Token {
                text: &run.text[a..end],
                start: run.start + a,
                end: run.start + end,
            });
        }
        if let Some(&(last, c)) = chars.last() {
            let end = last + c.len_utf8();
            out.push(Token {
                text: &run.text[last..end],
                start: run.start + last,
                end: run.start + end,
            });
        }
    }
    out
}

/// The document stored in `messages_fts_cjk` for a message's indexed text (see
/// [`super::schema::FTS_TEXT_SQL`]), or `None` when the text has no CJK letters and the
/// message gets no row.
pub fn document(text: &str) -> Option<String> {
    if !contains_cjk(text) {
        return None;
    }
    let mut doc = String::new();
    for token in tokens(text) {
        if !doc.is_empty() {
            doc.push(' ');
        }
        doc.push_str(token.text);
    }
    (!doc.is_empty()).then_some(doc)
}

/// The FTS5 query (for `messages_fts_cjk MATCH ?`) that finds the rows containing `run` as
/// a substring; `run` should be one [`Run`] of a query. `None` for text without CJK letters.
/// Several runs of one query combine with FTS5's implicit AND: `"数据 据库" "设计"`.
pub fn match_run(run: &str) -> Option<String> {
    let chars: Vec<char> = run.chars().filter(|&c| is_token_char(c)).collect();
    match chars.len() {
        0 => None,
        1 => Some(format!("\"{}\" *", chars[0])),
        _ => {
            let bigrams: Vec<String> = chars.windows(2).map(|w| w.iter().collect()).collect();
            Some(format!("\"{}\"", bigrams.join(" ")))
        }
    }
}

/// The FTS5 query for every CJK run of `query`, joined by spaces (implicit AND); `None`
/// when the query has no CJK letters. Non-CJK parts are left to the caller.
pub fn match_query(query: &str) -> Option<String> {
    let parts: Vec<String> = runs(query).filter_map(|r| match_run(r.text)).collect();
    (!parts.is_empty()).then(|| parts.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token_texts(text: &str) -> Vec<&str> {
        tokens(text).into_iter().map(|t| t.text).collect()
    }

    #[test]
    fn runs_become_bigrams_and_a_last_character() {
        assert_eq!(
            token_texts("广西桂林漓江"),
            ["广西", "西桂", "桂林", "林漓", "漓江", "江"]
        );
        assert_eq!(token_texts("好"), ["好"]);
        assert_eq!(token_texts("no cjk here"), Vec::<&str>::new());
    }

    #[test]
    fn punctuation_and_latin_split_runs() {
        assert_eq!(
            token_texts("我们讨论了数据库。mixed English 数据库 text、東京の天気"),
            [
                "我们", "们讨", "讨论", "论了", "了数", "数据", "据库", "库", "数据", "据库", "库",
                "東京", "京の", "の天", "天気", "気"
            ]
        );
        // Katakana prolonged sound mark and iteration marks are letters.
        assert_eq!(token_texts("データ"), ["デー", "ータ", "タ"]);
        assert_eq!(token_texts("人々"), ["人々", "々"]);
        // Hangul syllables; the space between words ends a run.
        assert_eq!(
            token_texts("한국어 검색"),
            ["한국", "국어", "어", "검색", "색"]
        );
    }

    #[test]
    fn offsets_point_into_the_source() {
        let text = "see 广西 now";
        let toks = tokens(text);
        assert_eq!(toks.len(), 2);
        assert_eq!(&text[toks[0].start..toks[0].end], "广西");
        assert_eq!(&text[toks[1].start..toks[1].end], "西");
    }

    #[test]
    fn documents_exist_only_for_cjk_text() {
        assert_eq!(document("hello world  "), None);
        assert_eq!(document("「」"), None, "punctuation alone has no letters");
        assert_eq!(
            document("广西 OR 桂林  ").as_deref(),
            Some("广西 西 桂林 林")
        );
        assert_eq!(document("é ü ñ"), None);
    }

    #[test]
    fn detection_matches_python_ranges() {
        for c in ['数', '㐀', '𠀀', '。', 'あ', 'カ', '한'] {
            assert!(is_cjk(c), "{c}");
        }
        for c in ['a', 'é', 'ｱ', 'Ａ', 'ᄀ', '\u{F900}'] {
            assert!(!is_cjk(c), "{c}");
        }
        assert!(contains_cjk("x 数"));
        assert!(!contains_cjk("naïve café — “quotes” ≥ 3"));
        assert_eq!(count_cjk("数据库 设计 ab"), 5);
    }

    #[test]
    fn queries_become_phrases_of_bigrams_or_prefixes() {
        assert_eq!(match_run("广西").as_deref(), Some("\"广西\""));
        assert_eq!(match_run("数据库").as_deref(), Some("\"数据 据库\""));
        assert_eq!(match_run("桂").as_deref(), Some("\"桂\" *"));
        assert_eq!(match_run("abc"), None);
        assert_eq!(
            match_query("kubernetes 部署 数据库").as_deref(),
            Some("\"部署\" \"数据 据库\"")
        );
        assert_eq!(match_query("plain"), None);
    }

    #[test]
    fn fts5_ascii_tokenizer_keeps_our_tokens_whole() {
        let conn = rusqlite::Connection::open_in_memory().expect("db");
        conn.execute_batch("CREATE VIRTUAL TABLE t USING fts5(content, tokenize='ascii')")
            .expect("create");
        let rows = [
            (1, "我们讨论了数据库的设计和索引优化"),
            (2, "广西桂林漓江旅游攻略"),
            (3, "mixed English 数据库 text"),
            (4, "数据 and 库 apart"),
            (5, "東京の天気は晴れです"),
            (6, "한국어 검색 테스트입니다"),
        ];
        for (id, text) in rows {
            if let Some(doc) = document(text) {
                conn.execute("INSERT INTO t(rowid, content) VALUES (?1, ?2)", (id, doc))
                    .expect("insert");
            }
        }
        let find = |q: &str| -> Vec<i64> {
            let expr = match_query(q).expect("cjk query");
            let mut stmt = conn
                .prepare("SELECT rowid FROM t WHERE t MATCH ?1 ORDER BY rowid")
                .expect("prepare");
            stmt.query_map([expr], |r| r.get(0))
                .expect("query")
                .map(|r| r.expect("row"))
                .collect()
        };
        assert_eq!(find("数据库"), [1, 3]);
        assert_eq!(find("数据"), [1, 3, 4]);
        assert_eq!(find("据库"), [1, 3], "not across the gap in row 4");
        assert_eq!(find("广西"), [2]);
        assert_eq!(find("江"), [2], "the last character of a run");
        assert_eq!(find("桂"), [2]);
        assert_eq!(find("天気"), [5]);
        assert_eq!(find("검색"), [6]);
        assert_eq!(find("数据库 设计"), [1], "implicit AND of runs");
        assert_eq!(find("漓江旅游"), [2]);
        assert_eq!(find("桂江"), Vec::<i64>::new());
    }
}
