//! The patch matcher against Python's `fuzzy_find_and_replace` on generated cases cut from
//! real skills: the same strategy wins, the same text comes out, the same error and hint.

mod support;

use hermes_loop::skills::{discover, fuzzy};
use serde_json::{Value as Json, json};
use support::{TempHome, corpus, peer};

/// A small deterministic generator (64-bit LCG), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn mutate(rng: &mut Rng, old: &str) -> String {
    match rng.below(9) {
        0 => old.to_string(),
        1 => old
            .lines()
            .map(str::trim_start)
            .collect::<Vec<_>>()
            .join("\n"),
        2 => old.replace(' ', "  "),
        3 => old
            .replace('"', "\u{201c}")
            .replace('\'', "\u{2019}")
            .replace(" - ", " \u{2014} "),
        4 => old.replace('\n', "\\n"),
        5 => {
            let mut lines: Vec<String> = old.lines().map(String::from).collect();
            if lines.len() > 2 {
                let mid = lines.len() / 2;
                lines[mid].push_str(" (edited)");
            }
            lines.join("\n")
        }
        6 => old
            .lines()
            .enumerate()
            .map(|(i, l)| {
                if i % 2 == 1 {
                    format!("{l}!")
                } else {
                    l.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("\n"),
        7 => format!("  {}  ", old.trim()),
        _ => format!("no such text {}", rng.next()),
    }
}

#[test]
fn patch_matcher_agrees_with_python() {
    let (root, _) = corpus();
    let files = discover::skill_files(&root).files;
    let mut rng = Rng(0x5eed);
    let mut cases: Vec<(String, String, String, bool)> = Vec::new();
    while cases.len() < 400 {
        let path = &files[rng.below(files.len())];
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let content: String = text.chars().take(3000).collect();
        let lines: Vec<&str> = content.split('\n').collect();
        if lines.len() < 3 {
            continue;
        }
        let start = rng.below(lines.len() - 1);
        let len = 1 + rng.below(6.min(lines.len() - start));
        let old_exact = lines[start..start + len].join("\n");
        if old_exact.trim().is_empty() {
            continue;
        }
        let old = mutate(&mut rng, &old_exact);
        let new = match rng.below(3) {
            0 => String::new(),
            1 => format!("{old}\nadded line"),
            _ => old.replacen(' ', " X ", 1),
        };
        cases.push((content, old, new, rng.below(4) == 0));
    }
    let home = TempHome::new();
    let input = serde_json::to_vec(&cases).expect("encode");
    let theirs = peer(home.path(), "fuzzy-many", &[], Some(&input));
    let theirs = theirs.as_array().expect("answers");
    let mut failures = Vec::new();
    let mut strategies = std::collections::BTreeMap::new();
    for ((content, old, new, all), theirs) in cases.iter().zip(theirs) {
        let ours = match fuzzy::find_and_replace(content, old, new, *all) {
            Ok(r) => {
                json!({"content": r.content, "count": r.count, "strategy": r.strategy, "error": null, "hint": ""})
            }
            Err(e) => json!({
                "content": content, "count": 0, "strategy": null, "error": e.message,
                "hint": fuzzy::no_match_hint(&e.message, old, content),
            }),
        };
        *strategies
            .entry(theirs["strategy"].as_str().unwrap_or("none").to_string())
            .or_insert(0) += 1;
        if &ours != theirs {
            failures.push(format!(
                "old={old:?} new={new:?} all={all}\n  ours:   {}\n  python: {}",
                short(&ours),
                short(theirs)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    // The generated cases reach the fuzzy strategies, not just exact matches.
    eprintln!("strategies: {strategies:?}");
    assert!(strategies.len() >= 5, "{strategies:?}");
}

fn short(v: &Json) -> String {
    let mut v = v.clone();
    if let Some(c) = v.get_mut("content") {
        *c = json!(format!(
            "<{} chars>",
            c.as_str().map_or(0, |s| s.chars().count())
        ));
    }
    v.to_string()
}
