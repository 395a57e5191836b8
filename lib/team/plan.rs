//! How the store answers a sanitised query: which tsvector, which tsquery, which order,
//! as the local reader routes it ([`crate::recall::route`]).

use super::words::{self, Cut};
use crate::pytext::strip;
use crate::sessions::cjk;

/// How the store answers a sanitised query, as the local reader routes it
/// ([`crate::recall::route`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// No CJK: the `fts` vector, FTS5's operators, ranked.
    Words { tsquery: String, terms: Vec<String> },
    /// Every word CJK letters (an operator aside, in any case): the `cjk` vector, ranked.
    Bigrams { tsquery: String, terms: Vec<String> },
    /// Mixed scripts: upstream's LIKE scan, which ORs every word and orders by time; each
    /// word is looked up in the vector its script belongs to.
    Like {
        words: Option<String>,
        cjk: Option<String>,
        first: String,
    },
    /// FTS5 would refuse the query, or nothing is left of it.
    Nothing,
}

fn is_operator(token: &str) -> bool {
    ["AND", "OR", "NOT"]
        .iter()
        .any(|op| token.eq_ignore_ascii_case(op))
}

/// Plans a sanitised, non-empty query.
pub fn plan(sanitized: &str) -> Plan {
    if !cjk::contains_cjk(sanitized) {
        return match words::tsquery(sanitized, Cut::Words) {
            Some(t) => Plan::Words {
                tsquery: t.tsquery,
                terms: t.terms,
            },
            None => Plan::Nothing,
        };
    }
    let raw = strip(sanitized.trim_matches('"'));
    let tokens: Vec<&str> = crate::pytext::split(raw).collect();
    // Quotes around a CJK word do not change what it matches (a bigram phrase already).
    let pure = tokens.iter().all(|t| {
        is_operator(t) || {
            let bare = t.trim_matches('"');
            !bare.is_empty() && bare.chars().all(cjk::is_token_char)
        }
    });
    if pure {
        let upper: Vec<String> = tokens
            .iter()
            .map(|t| {
                if is_operator(t) {
                    t.to_ascii_uppercase()
                } else {
                    t.trim_matches('"').to_string()
                }
            })
            .collect();
        return match words::tsquery(&upper.join(" "), Cut::Bigrams) {
            Some(t) => Plan::Bigrams {
                tsquery: t.tsquery,
                terms: t.terms,
            },
            None => Plan::Nothing,
        };
    }
    let mut like: Vec<&str> = tokens.iter().copied().filter(|t| !is_operator(t)).collect();
    if like.is_empty() {
        like = vec![raw];
    }
    let (mut word_parts, mut cjk_parts) = (Vec::new(), Vec::new());
    for token in &like {
        if let Some(q) = cjk::runs(token)
            .map(|r| phrase_query(r.text, Cut::Bigrams))
            .collect::<Option<Vec<_>>>()
            .filter(|parts| !parts.is_empty())
        {
            cjk_parts.push(format!("({})", q.join(" & ")));
        }
        let rest: String = token
            .chars()
            .map(|c| if cjk::is_token_char(c) { ' ' } else { c })
            .collect();
        if let Some(q) = phrase_query(&rest, Cut::Words) {
            word_parts.push(q);
        }
    }
    let join = |parts: Vec<String>| (!parts.is_empty()).then(|| parts.join(" | "));
    let (words, cjk) = (join(word_parts), join(cjk_parts));
    if words.is_none() && cjk.is_none() {
        return Plan::Nothing;
    }
    Plan::Like {
        words,
        cjk,
        first: like[0].to_string(),
    }
}

/// One word of the LIKE scan as a phrase query of its tokens.
fn phrase_query(text: &str, cut: Cut) -> Option<String> {
    let quoted = format!("\"{}\"", text.replace('"', "\"\""));
    words::tsquery(&quoted, cut).map(|t| t.tsquery)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_go_where_the_local_reader_sends_them() {
        assert_eq!(
            plan("\"node.js\" OR deno"),
            Plan::Words {
                tsquery: "(('node' <-> 'js') | 'deno')".into(),
                terms: vec!["node js".into(), "deno".into()],
            }
        );
        // A lower-case operator between CJK words is an operator, as locally.
        assert_eq!(
            plan("广西 or 桂林"),
            Plan::Bigrams {
                tsquery: "('广西' | '桂林')".into(),
                terms: vec!["广西".into(), "桂林".into()],
            }
        );
        assert_eq!(
            plan("kubernetes 部署"),
            Plan::Like {
                words: Some("'kubernetes'".into()),
                cjk: Some("('部署')".into()),
                first: "kubernetes".into(),
            }
        );
        assert_eq!(plan("it's"), Plan::Nothing);
    }
}
