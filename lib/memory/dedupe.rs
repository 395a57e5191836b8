//! Duplicates: real homes collect the same fact many times over (one report: 49 copies),
//! because upstream only refuses a byte-identical add. We compare entries by a normalised
//! form — case, whitespace and the punctuation around words do not count — to refuse an add
//! that says what an entry already says, and flag near-duplicates for a person to merge.

use std::collections::HashMap;

use unicode_normalization::UnicodeNormalization;

/// Word-set similarity (Jaccard) from which two entries are reported as near-duplicates.
pub const NEAR_DUPLICATE_SIMILARITY: f64 = 0.6;

/// Above this many entries only equal normalised forms are reported: comparing every pair
/// of a huge hand-written file would take quadratic time.
pub const MAX_PAIRWISE_ENTRIES: usize = 1000;

/// Entries shorter than this many words are only reported when their normalised forms are
/// equal: two-word entries share half their words too easily.
const MIN_WORDS: usize = 3;

/// The form two entries are compared in: NFKC, lower case, words split on whitespace,
/// punctuation stripped from the edges of each word (`"tea."` is `tea`, `v1.2` stays `v1.2`,
/// `C++` stays `c++`), joined by single spaces.
pub fn normalise(text: &str) -> String {
    let folded: String = text.nfkc().flat_map(char::to_lowercase).collect();
    let mut out = String::with_capacity(folded.len());
    for word in folded.split(crate::pytext::is_space) {
        let word = word.trim_matches(is_punctuation);
        if word.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// Punctuation (not symbols: `+`, `$`, `<`, `=`, `|` and the like carry meaning).
fn is_punctuation(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_punctuation()
            && !matches!(c, '$' | '+' | '<' | '=' | '>' | '^' | '`' | '|' | '~');
    }
    matches!(c,
        '¡' | '§' | '¶' | '·' | '¿' | '«' | '»'
        | '\u{2010}'..='\u{2027}' | '\u{2030}'..='\u{205e}'
        | '\u{3001}'..='\u{3003}' | '\u{3008}'..='\u{3011}')
}

/// The index of the first entry whose normalised form equals `text`'s.
pub fn find_equivalent<S: AsRef<str>>(entries: &[S], text: &str) -> Option<usize> {
    let key = normalise(text);
    if key.is_empty() {
        return None;
    }
    entries.iter().position(|e| normalise(e.as_ref()) == key)
}

/// Two entries that say nearly the same thing (0-based indices, `first < second`).
#[derive(Debug, Clone, PartialEq)]
pub struct NearDuplicate {
    pub first: usize,
    pub second: usize,
    /// Shared words over all words of the two (Jaccard), rounded to two decimals.
    pub similarity: f64,
    /// The normalised forms are equal: only case, spacing or punctuation differ.
    pub same_normalised: bool,
}

/// Near-duplicate pairs in index order: each entry whose normalised form repeats an earlier
/// one, paired with the first; and pairs of distinct entries whose word sets are similar.
pub fn near_duplicates<S: AsRef<str>>(entries: &[S]) -> Vec<NearDuplicate> {
    let mut vocabulary: HashMap<String, u32> = HashMap::new();
    let forms: Vec<(String, Vec<u32>)> = entries
        .iter()
        .map(|e| {
            let form = normalise(e.as_ref());
            let mut words: Vec<u32> = form
                .split(' ')
                .filter(|w| !w.is_empty())
                .map(|w| {
                    let next = u32::try_from(vocabulary.len()).unwrap_or(u32::MAX);
                    *vocabulary.entry(w.to_string()).or_insert(next)
                })
                .collect();
            words.sort_unstable();
            words.dedup();
            (form, words)
        })
        .collect();
    // A later copy of an equal form is paired with the first copy only, so 49 copies of one
    // fact make 48 pairs, not 1,176.
    let copies = same_forms(&forms);
    if forms.len() > MAX_PAIRWISE_ENTRIES {
        return copies;
    }
    let is_copy: std::collections::HashSet<usize> = copies.iter().map(|d| d.second).collect();
    let mut out = copies;
    for (i, (_, words_a)) in forms.iter().enumerate() {
        if is_copy.contains(&i) || words_a.len() < MIN_WORDS {
            continue;
        }
        for (j, (_, words_b)) in forms.iter().enumerate().skip(i + 1) {
            if is_copy.contains(&j) || words_b.len() < MIN_WORDS {
                continue;
            }
            let shared = sorted_intersection(words_a, words_b);
            let union = words_a.len() + words_b.len() - shared;
            let similarity = shared as f64 / union as f64;
            if similarity >= NEAR_DUPLICATE_SIMILARITY {
                out.push(NearDuplicate {
                    first: i,
                    second: j,
                    similarity: (similarity * 100.0).round() / 100.0,
                    same_normalised: false,
                });
            }
        }
    }
    out.sort_by_key(|d| (d.first, d.second));
    out
}

/// Pairs with equal normalised forms, found through a map (linear in the entries): each later
/// copy paired with the first.
fn same_forms(forms: &[(String, Vec<u32>)]) -> Vec<NearDuplicate> {
    let mut first_of: HashMap<&str, usize> = HashMap::new();
    let mut out = Vec::new();
    for (i, (form, _)) in forms.iter().enumerate() {
        if form.is_empty() {
            continue;
        }
        match first_of.get(form.as_str()) {
            Some(&first) => out.push(NearDuplicate {
                first,
                second: i,
                similarity: 1.0,
                same_normalised: true,
            }),
            None => {
                first_of.insert(form, i);
            }
        }
    }
    out
}

fn sorted_intersection(a: &[u32], b: &[u32]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_form_ignores_case_spacing_and_edge_punctuation() {
        assert_eq!(normalise("  User likes TEA. "), "user likes tea");
        assert_eq!(normalise("User  likes\n\"tea\"!"), "user likes tea");
        assert_eq!(normalise("Uses C++"), "uses c++");
        assert_eq!(normalise("Python v1.2, not 3.11"), "python v1.2 not 3.11");
        assert_eq!(normalise("ＵＳＥＲ"), "user");
        assert_eq!(normalise("— … —"), "");
        assert_ne!(normalise("Uses C++"), normalise("Uses C."));
    }

    #[test]
    fn finds_the_equivalent_entry() {
        let entries = ["Project uses pytest", "Editor is helix"];
        assert_eq!(find_equivalent(&entries, "editor is Helix."), Some(1));
        assert_eq!(find_equivalent(&entries, "Editor is vim"), None);
        assert_eq!(find_equivalent(&entries, "..."), None);
    }

    /// Case folds beyond ASCII, and CJK text (no spaces, its own full stops and brackets)
    /// loses its edge punctuation like any other: both adds say what an entry already says.
    #[test]
    fn accented_and_cjk_duplicates_are_equivalent() {
        assert_eq!(normalise("Favourite CAFÉ is ÀLA"), "favourite café is àla");
        let entries = ["Favourite café is Àla", "用户喜欢喝茶", "编辑器是 helix"];
        assert_eq!(find_equivalent(&entries, "FAVOURITE CAFÉ IS ÀLA"), Some(0));
        assert_eq!(find_equivalent(&entries, "「用户喜欢喝茶」。"), Some(1));
        assert_eq!(find_equivalent(&entries, "用户喜欢喝茶、"), Some(1));
        assert_eq!(find_equivalent(&entries, "《编辑器是》 helix。"), Some(2));
        assert_eq!(find_equivalent(&entries, "用户喜欢喝咖啡。"), None);
    }

    #[test]
    fn huge_files_only_get_equal_forms_in_linear_time() {
        let mut entries: Vec<String> = (0..MAX_PAIRWISE_ENTRIES + 500)
            .map(|i| format!("fact number {i} about things"))
            .collect();
        entries.push("FACT number 7 about things.".into());
        let found = near_duplicates(&entries);
        assert_eq!(
            found,
            vec![NearDuplicate {
                first: 7,
                second: MAX_PAIRWISE_ENTRIES + 500,
                similarity: 1.0,
                same_normalised: true
            }]
        );
    }

    #[test]
    fn reports_near_duplicates_in_order() {
        let entries = [
            "User prefers dark mode",
            "Editor is helix",
            "The user prefers dark mode.",
            "editor is HELIX",
            "Editor is helix!",
            "Uses fish shell",
            "Uses bash shell",
        ];
        let found = near_duplicates(&entries);
        assert_eq!(
            found,
            vec![
                NearDuplicate {
                    first: 0,
                    second: 2,
                    similarity: 0.8,
                    same_normalised: false
                },
                NearDuplicate {
                    first: 1,
                    second: 3,
                    similarity: 1.0,
                    same_normalised: true
                },
                NearDuplicate {
                    first: 1,
                    second: 4,
                    similarity: 1.0,
                    same_normalised: true
                },
            ]
        );
    }

    /// Three words are enough to be compared pairwise, two are not; a later copy is paired
    /// with its first only, never compared again.
    #[test]
    fn who_is_compared_pairwise() {
        let entries = [
            "likes green tea",
            "Likes green tea.",
            "likes green tea daily",
            "dark mode",
            "dark mode always",
        ];
        assert_eq!(
            near_duplicates(&entries),
            vec![
                NearDuplicate {
                    first: 0,
                    second: 1,
                    similarity: 1.0,
                    same_normalised: true
                },
                NearDuplicate {
                    first: 0,
                    second: 2,
                    similarity: 0.75,
                    same_normalised: false
                },
            ]
        );
        assert_eq!(
            near_duplicates(&["likes green tea daily", "likes green tea"]),
            vec![NearDuplicate {
                first: 0,
                second: 1,
                similarity: 0.75,
                same_normalised: false
            }]
        );
    }

    /// Exactly MAX_PAIRWISE_ENTRIES entries are still compared pair by pair.
    #[test]
    fn the_pairwise_limit_is_inclusive() {
        let mut entries: Vec<String> = (0..MAX_PAIRWISE_ENTRIES - 2)
            .map(|i| format!("entry{i} alpha{i} beta{i}"))
            .collect();
        entries.push("likes green tea daily".into());
        entries.push("likes green tea".into());
        assert_eq!(entries.len(), MAX_PAIRWISE_ENTRIES);
        assert_eq!(
            near_duplicates(&entries),
            vec![NearDuplicate {
                first: MAX_PAIRWISE_ENTRIES - 2,
                second: MAX_PAIRWISE_ENTRIES - 1,
                similarity: 0.75,
                same_normalised: false
            }]
        );
    }
}
