//! Which index answers a sanitised query (reference `recall` §3.4, and where we go further).
//!
//! - No CJK character (Python's ranges): `messages_fts`, the query as sanitised. As upstream.
//! - CJK, and every word is CJK letters (an operator aside): our bigram index
//!   `messages_fts_cjk`, which finds words of any length, ranks them and honours AND/OR/NOT.
//!   Upstream sends one- and two-character words to an unranked LIKE scan that ORs every
//!   word; this is where our answers differ on purpose (`docs/decisions.md`).
//! - Anything else with CJK (mixed scripts, punctuation in a word), or a store whose bigram
//!   index is missing or behind: upstream's routing, the trigram table when every CJK word
//!   has three characters or more, else the LIKE scan (with rewound rows left out).

use crate::sessions::cjk;

use crate::pytext::{split, strip};

/// How a query is answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// `messages_fts MATCH expr`.
    Fts { expr: String },
    /// `messages_fts_cjk MATCH expr`; `needles` are the words a snippet highlights.
    Bigram { expr: String, needles: Vec<String> },
    /// `messages_fts_trigram MATCH expr`, falling back to `like` if FTS5 refuses the query.
    Trigram { expr: String, like: Like },
    /// Upstream's substring scan.
    Like(Like),
}

/// The LIKE scan's words: the query's non-operator words (or the whole query when it has
/// none), each matched as a substring of content, tool name or tool calls, ORed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Like {
    pub tokens: Vec<String>,
}

/// What the store offers (see [`super::store::Capabilities`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Indexes {
    pub trigram: bool,
    pub bigram: bool,
}

fn is_operator(token: &str) -> bool {
    ["AND", "OR", "NOT"]
        .iter()
        .any(|op| token.eq_ignore_ascii_case(op))
}

/// Routes a sanitised, non-empty query.
pub fn route(sanitized: &str, indexes: Indexes) -> Route {
    if !cjk::contains_cjk(sanitized) {
        return Route::Fts {
            expr: sanitized.to_string(),
        };
    }
    // Python: query.strip('"').strip()
    let raw = strip(sanitized.trim_matches('"'));
    let tokens: Vec<&str> = split(raw).collect();
    if indexes.bigram
        && let Some(route) = bigram(&tokens)
    {
        return route;
    }
    let like = Like {
        tokens: {
            let words: Vec<String> = tokens
                .iter()
                .filter(|t| !is_operator(t))
                .map(|t| t.to_string())
                .collect();
            if words.is_empty() {
                vec![raw.to_string()]
            } else {
                words
            }
        },
    };
    let short = tokens
        .iter()
        .any(|t| !is_operator(t) && cjk::contains_cjk(t) && cjk::count_cjk(t) < 3);
    if indexes.trigram && cjk::count_cjk(raw) >= 3 && !short {
        let expr = tokens
            .iter()
            .map(|t| {
                if is_operator(t) {
                    t.to_string()
                } else {
                    format!("\"{}\"", t.replace('"', "\"\""))
                }
            })
            .collect::<Vec<_>>()
            .join(" ");
        Route::Trigram { expr, like }
    } else {
        Route::Like(like)
    }
}

/// The bigram expression when every word is a run of CJK letters (quotes around a word
/// allowed) and the operators sit between words; `None` otherwise.
fn bigram(tokens: &[&str]) -> Option<Route> {
    let mut parts = Vec::with_capacity(tokens.len());
    let mut needles = Vec::new();
    let mut expect_word = true;
    let mut negated = false;
    for token in tokens {
        if is_operator(token) {
            if expect_word {
                return None;
            }
            let op = token.to_ascii_uppercase();
            negated = op == "NOT";
            parts.push(op);
            expect_word = true;
            continue;
        }
        let word = token.trim_matches('"');
        if word.is_empty() || !word.chars().all(cjk::is_token_char) {
            return None;
        }
        parts.push(cjk::match_run(word)?);
        if !negated {
            needles.push(word.to_string());
        }
        negated = false;
        expect_word = false;
    }
    if expect_word {
        return None;
    }
    Some(Route::Bigram {
        expr: parts.join(" "),
        needles,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: Indexes = Indexes {
        trigram: true,
        bigram: true,
    };
    const UPSTREAM: Indexes = Indexes {
        trigram: true,
        bigram: false,
    };

    fn like(tokens: &[&str]) -> Like {
        Like {
            tokens: tokens.iter().map(|t| t.to_string()).collect(),
        }
    }

    #[test]
    fn upstream_routing_without_the_bigram_index() {
        assert_eq!(
            route("kubernetes", UPSTREAM),
            Route::Fts {
                expr: "kubernetes".into()
            }
        );
        assert_eq!(route("数据", UPSTREAM), Route::Like(like(&["数据"])));
        assert_eq!(
            route("数据库", UPSTREAM),
            Route::Trigram {
                expr: "\"数据库\"".into(),
                like: like(&["数据库"])
            }
        );
        assert_eq!(
            route("数据库 设计", UPSTREAM),
            Route::Like(like(&["数据库", "设计"]))
        );
        assert_eq!(
            route("广西桂林 OR 漓江旅游", UPSTREAM),
            Route::Trigram {
                expr: "\"广西桂林\" OR \"漓江旅游\"".into(),
                like: like(&["广西桂林", "漓江旅游"])
            }
        );
        assert_eq!(
            route("数据库 ab", UPSTREAM),
            Route::Trigram {
                expr: "\"数据库\" \"ab\"".into(),
                like: like(&["数据库", "ab"])
            }
        );
        assert_eq!(
            route("\"广西\" OR \"桂林\"", UPSTREAM),
            Route::Like(like(&["广西\"", "\"桂林"]))
        );
        assert_eq!(
            route(
                "数据库",
                Indexes {
                    trigram: false,
                    bigram: false
                }
            ),
            Route::Like(like(&["数据库"]))
        );
    }

    #[test]
    fn cjk_words_go_to_the_bigram_index() {
        let bigram = |expr: &str, needles: &[&str]| Route::Bigram {
            expr: expr.into(),
            needles: needles.iter().map(|n| n.to_string()).collect(),
        };
        assert_eq!(route("数据", ALL), bigram("\"数据\"", &["数据"]));
        assert_eq!(route("数据库", ALL), bigram("\"数据 据库\"", &["数据库"]));
        assert_eq!(route("桂", ALL), bigram("\"桂\" *", &["桂"]));
        assert_eq!(
            route("广西 or 桂林", ALL),
            bigram("\"广西\" OR \"桂林\"", &["广西", "桂林"])
        );
        assert_eq!(
            route("\"广西\" OR \"桂林\"", ALL),
            bigram("\"广西\" OR \"桂林\"", &["广西", "桂林"])
        );
        assert_eq!(
            route("数据 NOT 设计", ALL),
            bigram("\"数据\" NOT \"设计\"", &["数据"])
        );
        assert_eq!(
            route("東京の天気 한국어", ALL),
            bigram(
                "\"東京 京の の天 天気\" \"한국 국어\"",
                &["東京の天気", "한국어"]
            )
        );
    }

    #[test]
    fn mixed_or_malformed_queries_keep_upstream_routing() {
        assert_eq!(
            route("kubernetes 部署", ALL),
            Route::Like(like(&["kubernetes", "部署"]))
        );
        assert!(matches!(route("数据库*", ALL), Route::Trigram { .. }));
        assert!(matches!(route("数据、设计", ALL), Route::Trigram { .. }));
        assert!(matches!(route("数据 OR", ALL), Route::Like(_)));
        assert!(matches!(route("数据 OR AND 设计", ALL), Route::Like(_)));
    }
}
