//! Case-insensitive patterns read for lower-cased text.
//!
//! A case-folded byte class holds a letter's two cases, so it accepts a byte exactly when it
//! accepts the byte's lower case: a case-folded automaton therefore decides alike on a line
//! and on the line lower-cased (which keeps every byte offset), and on lower-cased text the
//! pattern's upper-case letters are never needed. Read without case folding and lower-cased,
//! a pattern costs half as much to translate and compile, and its automaton meets half as
//! many distinct letters.
//!
//! The lowering is done on the parsed syntax tree, in place, before translation: literals
//! lower-cased, and each class item that holds upper-case letters given their lower-case
//! images beside them. Membership in a class is decided byte by byte through every class
//! operation (union, intersection, difference, negation), so on a byte that is not an
//! upper-case letter, and lower-cased text has none, the lowered class agrees with the
//! case-folded one.

use regex_automata::util::syntax;
use regex_syntax::ast::{
    self, Ast, ClassSet, ClassSetItem, ClassSetRange, ClassSetUnion, Flag, FlagsItemKind,
    GroupKind, LiteralKind,
};
use regex_syntax::hir::{Hir, translate::TranslatorBuilder};

/// Whether a case-insensitive pattern may be matched against lower-cased text: true unless a
/// group turns case folding off (`(?-i:KEY)`), where upper and lower case differ. A cheap
/// look at the text, for choosing before anything is parsed; a false alarm (`\(?-i` read as
/// a group) only keeps the pattern case-folded, and [`parse`] checks the parsed flags again.
pub fn folds_on_lowered_text(pattern: &str) -> bool {
    !pattern.match_indices("(?").any(|(at, _)| {
        let flags = &pattern[at + 2..];
        let flags = &flags[..flags.find([':', ')']).unwrap_or(flags.len())];
        flags
            .split_once('-')
            .is_some_and(|(_, off)| off.contains('i'))
    })
}

/// `pattern` read for lower-cased text with `config` (the syntax every rule is read with),
/// case folding left off. `None` when it does not parse, or holds what has no lowered form: a
/// Unicode class (`\pL`), a POSIX class (`[[:upper:]]`), or a flag turning case folding off;
/// the caller then reads it case-folded.
pub fn parse(pattern: &str, config: &syntax::Config) -> Option<Hir> {
    let mut tree = ast::parse::ParserBuilder::new()
        .nest_limit(config.get_nest_limit())
        .octal(config.get_octal())
        .ignore_whitespace(config.get_ignore_whitespace())
        .build()
        .parse(pattern)
        .ok()?;
    lower(&mut tree)?;
    TranslatorBuilder::new()
        .unicode(config.get_unicode())
        .utf8(config.get_utf8())
        .multi_line(config.get_multi_line())
        .crlf(config.get_crlf())
        .dot_matches_new_line(config.get_dot_matches_new_line())
        .line_terminator(config.get_line_terminator())
        .swap_greed(config.get_swap_greed())
        .case_insensitive(false)
        .build()
        .translate(pattern, &tree)
        .ok()
}

/// Lowers `tree` in place; `None` (and a tree to drop) on what has no lowered form.
fn lower(tree: &mut Ast) -> Option<()> {
    match tree {
        Ast::Empty(_) | Ast::Dot(_) | Ast::Assertion(_) | Ast::ClassPerl(_) => Some(()),
        Ast::Flags(set) => keeps_folding(&set.flags),
        Ast::Literal(literal) => {
            literal.c = literal.c.to_ascii_lowercase();
            Some(())
        }
        Ast::ClassUnicode(_) => None,
        Ast::ClassBracketed(class) => lower_set(&mut class.kind),
        Ast::Repetition(repetition) => lower(&mut repetition.ast),
        Ast::Group(group) => {
            if let GroupKind::NonCapturing(flags) = &group.kind {
                keeps_folding(flags)?;
            }
            lower(&mut group.ast)
        }
        Ast::Alternation(alternation) => alternation.asts.iter_mut().try_for_each(lower),
        Ast::Concat(concat) => concat.asts.iter_mut().try_for_each(lower),
    }
}

/// `None` when `flags` turn case folding off.
fn keeps_folding(flags: &ast::Flags) -> Option<()> {
    let mut negated = false;
    for item in &flags.items {
        match item.kind {
            FlagsItemKind::Negation => negated = true,
            FlagsItemKind::Flag(Flag::CaseInsensitive) if negated => return None,
            FlagsItemKind::Flag(_) => {}
        }
    }
    Some(())
}

fn lower_set(set: &mut ClassSet) -> Option<()> {
    match set {
        ClassSet::Item(item) => lower_item(item),
        ClassSet::BinaryOp(op) => {
            lower_set(&mut op.lhs)?;
            lower_set(&mut op.rhs)
        }
    }
}

/// Gives a class item the lower-case images of the upper-case letters it holds. The upper
/// cases stay: lower-cased text never holds them.
fn lower_item(item: &mut ClassSetItem) -> Option<()> {
    match item {
        // `\w` holds both cases; `\d`, `\s` neither; their negations both or neither.
        ClassSetItem::Empty(_) | ClassSetItem::Perl(_) => Some(()),
        ClassSetItem::Ascii(_) | ClassSetItem::Unicode(_) => None,
        ClassSetItem::Literal(literal) => {
            literal.c = literal.c.to_ascii_lowercase();
            Some(())
        }
        ClassSetItem::Range(range) => {
            let (start, end) = (range.start.c.max('A'), range.end.c.min('Z'));
            if start <= end {
                let image = ClassSetRange {
                    span: range.span,
                    start: ast::Literal {
                        c: start.to_ascii_lowercase(),
                        kind: LiteralKind::Verbatim,
                        ..range.start.clone()
                    },
                    end: ast::Literal {
                        c: end.to_ascii_lowercase(),
                        kind: LiteralKind::Verbatim,
                        ..range.end.clone()
                    },
                };
                let held = ClassSetItem::Range(range.clone());
                *item = ClassSetItem::Union(ClassSetUnion {
                    span: image.span,
                    items: vec![held, ClassSetItem::Range(image)],
                });
            }
            Some(())
        }
        ClassSetItem::Bracketed(class) => lower_set(&mut class.kind),
        ClassSetItem::Union(union) => union.items.iter_mut().try_for_each(lower_item),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guard::engine::syntax_config;
    use regex_automata::meta::Regex;

    fn parse(pattern: &str) -> Option<Hir> {
        super::parse(pattern, &syntax_config(true))
    }

    /// The lowered pattern on lower-cased text finds what the case-folded pattern finds on
    /// the text as written.
    fn agree(pattern: &str, texts: &[&str]) {
        let lowered = Regex::builder()
            .build_from_hir(&parse(pattern).expect("the pattern has a lowered form"))
            .expect("the lowered pattern compiles");
        let folded = Regex::builder()
            .syntax(syntax_config(false))
            .build(pattern)
            .expect("the folded pattern compiles");
        for text in texts {
            let spans = |regex: &Regex, text: &str| -> Vec<(usize, usize)> {
                regex
                    .find_iter(text.as_bytes())
                    .map(|m| (m.start(), m.end()))
                    .collect()
            };
            assert_eq!(
                spans(&lowered, &text.to_ascii_lowercase()),
                spans(&folded, text),
                "{pattern} on {text:?}"
            );
        }
    }

    #[test]
    fn literals_and_ranges_match_lowered_text_as_the_folded_pattern_matches_the_original() {
        let texts = [
            "CURL x",
            "curl X",
            "Curl -",
            "nothing",
            "[a] [Q] [q] [5]",
            "ÉCOLE",
        ];
        for pattern in [
            r"curl\s+[A-Z]",
            r"\bCuRl\b",
            r"\[[X-c]\]",
            r"\[[0-9A-F]\]",
            r"\x43url",
        ] {
            agree(pattern, &texts);
        }
    }

    #[test]
    fn negated_and_combined_classes_keep_their_folded_meaning() {
        let texts = ["xa", "xA", "x5", "x-", "xQ", "xq", "x\n"];
        // Folded, `[^a-z]` refuses letters of either case; read as written and lowered
        // naively, it would accept the lower case of every capital it holds.
        for pattern in [
            r"x[^a-z]",
            r"x[^A-Z]",
            r"x[^A-Z0-9]",
            r"x[[a-z]&&[^q]]",
            r"x[\w--[A-P]]",
            r"x[^\W]",
        ] {
            agree(pattern, &texts);
        }
    }

    #[test]
    fn what_has_no_lowered_form_is_refused() {
        assert!(parse(r"\pL").is_none());
        assert!(parse(r"[[:upper:]]").is_none());
        assert!(parse(r"key(?-i:ID)").is_none());
        assert!(parse(r"(?s-i)x").is_none());
        assert!(parse(r"unclosed(").is_none());
        assert!(parse(r"(?i:x)(?s)y").is_some());
    }

    #[test]
    fn only_patterns_that_keep_case_folding_on_are_chosen_for_lowered_text() {
        assert!(folds_on_lowered_text(r"\bcurl\s+-s"));
        assert!(folds_on_lowered_text(r"(?:a|b)(?i:c)(?s)d"));
        assert!(!folds_on_lowered_text(r"\$(?-i:KEY|TOKEN)"));
        assert!(!folds_on_lowered_text(r"(?s-i)x"));
        assert!(!folds_on_lowered_text(r"x(?-i"));
    }
}
