//! The YAML loader never panics: every frontmatter of the public corpus, cut at random points
//! and with YAML punctuation inserted, gives a value or an error.

mod support;

use std::path::Path;

use hermes_loop::skills::{discover, frontmatter};

/// The committed sample, 400 mutations a skill: runs everywhere, CI included, so a fresh
/// clone and CI mutate the same documents.
#[test]
fn mutated_sample_frontmatter_never_panics_and_the_name_shortcut_agrees() {
    let parsed = mutate_every_frontmatter(&support::testdata("skills-sample"), 400);
    assert!(parsed > 10_000, "only {parsed} documents parsed");
}

/// The full corpus (where it is checked out), 12 mutations a skill.
#[test]
fn mutated_corpus_frontmatter_never_panics_and_the_name_shortcut_agrees() {
    let (corpus, full) = support::corpus();
    if !full {
        eprintln!("skipped: no full corpus; the sample's mutations are the test above");
        return;
    }
    let parsed = mutate_every_frontmatter(&corpus, 12);
    assert!(parsed > 10_000, "only {parsed} documents parsed");
}

/// Mutates each SKILL.md's frontmatter `rounds` times (cut, YAML punctuation inserted, or
/// both) and checks that the loader returns and that the scanner's name shortcut answers as
/// the parser does. The number of documents tried.
fn mutate_every_frontmatter(root: &Path, rounds: usize) -> usize {
    let specials = [
        '|', '>', '-', ':', '\n', ' ', '"', '\'', '#', '&', '*', '!', '[', ']', '{', '}', '?', ',',
        '%', '@', '\t', '\\', '+', '2', '\u{feff}', '\u{0}',
    ];
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut parsed = 0usize;
    for path in discover::skill_files(root).files {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Some(fences) = frontmatter::fences(&text) else {
            continue;
        };
        let chars: Vec<char> = fences.yaml.chars().collect();
        for _ in 0..rounds {
            let mut mutated = chars.clone();
            let at = (next() as usize) % (mutated.len() + 1);
            match next() % 3 {
                0 => mutated.truncate(at),
                1 => mutated.insert(at, specials[(next() as usize) % specials.len()]),
                _ => {
                    mutated.truncate(at);
                    let at = (next() as usize) % (mutated.len() + 1);
                    mutated.insert(at, specials[(next() as usize) % specials.len()]);
                }
            }
            let text: String = mutated.into_iter().collect();
            let _ = hermes_loop::yaml::load_document(&text, "<fuzz>");
            let skill_md = format!("---{text}\n---\nbody\n");
            assert_eq!(
                frontmatter::name(&skill_md).as_deref(),
                frontmatter::parse(&skill_md).name(),
                "{skill_md:?}"
            );
            parsed += 1;
        }
    }
    parsed
}

/// The scanner's shortcut to a skill's name agrees with the parser on every real SKILL.md.
#[test]
fn the_name_shortcut_agrees_with_the_parser_on_the_corpus() {
    let (corpus, full) = support::corpus();
    let mut skills = 0usize;
    for path in discover::skill_files(&corpus).files {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let parsed = frontmatter::parse(&text);
        assert_eq!(
            frontmatter::name(&text).as_deref(),
            parsed.name(),
            "{}",
            path.display()
        );
        skills += 1;
    }
    assert!(skills >= if full { 1_400 } else { 30 }, "{skills} skills");
}
