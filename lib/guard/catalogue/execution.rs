//! Execution: code that runs other programs. Skills run commands by nature, so these are
//! noted at medium; they matter most as one half of a correlated pair.

use super::{gated, pattern};
use crate::guard::rule::{Candidate, Category::Execution, Domain, Gate, Rule, Severity, Signal};

fn backtick(c: &Candidate<'_>) -> Gate {
    // Markdown inline code that shows a `$(…)` is documentation, handled by context; inside
    // a script a backtick string with a substitution is a shell running a shell.
    if c.matched().len() > 200 {
        Gate::Drop
    } else {
        Gate::Keep
    }
}

pub const RULES: &[Rule] = &[
    Rule {
        title: "Python subprocess",
        why: "runs a program through subprocess",
        fix: "nothing, if the command is fixed and the skill says why it runs",
        upstream: &["python_subprocess"],
        detect: pattern(
            &["subprocess"],
            r"\bsubprocess\.(?:run|call|Popen|check_output|check_call|getoutput|getstatusoutput)\s*\(",
        ),
        signal: Some(Signal::Exec),
        examples: &["subprocess.run(['git', 'status'])"],
        clean: &["import subprocess"],
        ..Rule::base(
            "python-subprocess",
            Execution,
            Severity::Medium,
            Domain::Command,
        )
    },
    Rule {
        title: "subprocess with shell=True",
        why: "runs a command line through the shell; interpolated values become shell injection",
        fix: "pass an argument list and shell=False",
        upstream: &["python_subprocess"],
        detect: pattern(
            &["shell=true", "shell = true"],
            r"\bsubprocess\.\w+\s*\([^\n]*\bshell\s*=\s*True\b",
        ),
        signal: Some(Signal::Exec),
        examples: &["subprocess.run(f'convert {name}', shell=True)"],
        clean: &["subprocess.run(['ls'])"],
        ..Rule::base(
            "subprocess-shell",
            Execution,
            Severity::Medium,
            Domain::Command,
        )
    },
    Rule {
        title: "os.system",
        why: "runs a command line through the shell with os.system",
        fix: "use subprocess.run with an argument list",
        upstream: &["python_os_system"],
        detect: pattern(&["os.system"], r"\bos\.system\s*\("),
        signal: Some(Signal::Exec),
        examples: &["os.system('ls')"],
        clean: &["os.path"],
        ..Rule::base("os-system", Execution, Severity::Medium, Domain::Command)
    },
    Rule {
        title: "os.popen",
        why: "runs a command line through the shell with os.popen",
        fix: "use subprocess.run with an argument list",
        upstream: &["python_os_popen"],
        detect: pattern(&["os.popen"], r"\bos\.popen\s*\("),
        signal: Some(Signal::Exec),
        examples: &["os.popen('id').read()"],
        clean: &["os.open(p)"],
        ..Rule::base("os-popen", Execution, Severity::Medium, Domain::Command)
    },
    Rule {
        title: "Node child_process",
        why: "runs a program through Node's child_process",
        fix: "nothing, if the command is fixed; prefer execFile with arguments",
        upstream: &["node_child_process"],
        detect: pattern(
            &["child_process", "execsync", "spawnsync"],
            r"\bchild_process\.(?:exec|execSync|spawn|spawnSync|fork|execFile)\s*\(|\b(?:execSync|spawnSync)\s*\(",
        ),
        signal: Some(Signal::Exec),
        examples: &["child_process.exec(cmd)", "execSync('npm test')"],
        clean: &["require('child_process')"],
        ..Rule::base(
            "node-child-process",
            Execution,
            Severity::Medium,
            Domain::Command,
        )
    },
    Rule {
        title: "Java Runtime.exec",
        why: "runs a program through Java's Runtime.exec",
        fix: "use ProcessBuilder with arguments",
        upstream: &["java_runtime_exec"],
        detect: pattern(
            &["getruntime"],
            r"\bRuntime\.getRuntime\s*\(\s*\)\.exec\s*\(",
        ),
        signal: Some(Signal::Exec),
        examples: &["Runtime.getRuntime().exec(cmd)"],
        clean: &["Runtime.getRuntime().availableProcessors()"],
        ..Rule::base(
            "java-runtime-exec",
            Execution,
            Severity::Medium,
            Domain::Command,
        )
    },
    Rule {
        title: "backtick string with command substitution",
        why: "a backtick string that runs a command substitution",
        fix: "nothing, if it is a shell example",
        upstream: &["backtick_subshell"],
        detect: gated(&["$("], r"`[^`\n]*\$\([^)\n]+\)[^`\n]*`", backtick),
        examples: &["x=`echo $(whoami)`"],
        clean: &["$(whoami)"],
        ..Rule::base(
            "backtick-subshell",
            Execution,
            Severity::Low,
            Domain::Command,
        )
    },
    Rule {
        title: "runs a shell",
        why: "hands a string to a shell",
        fix: "nothing on its own",
        detect: pattern(
            &[
                "sh -c", "bash -c", "zsh -c", "| sh", "| bash", "|sh", "|bash", "source ", "eval ",
            ],
            r"\b(?:ba|z|da)?sh\s+-c\b|\|\s*(?:sudo\s+)?(?:(?:/usr)?/bin/)?(?:ba|z)?sh\b|\bsource\s+\S|\beval\s+[\x22'$]",
        ),
        signal: Some(Signal::Exec),
        report: false,
        examples: &["bash -c \"$x\"", "cat x | sh"],
        clean: &["sha256sum x"],
        ..Rule::base("sig-shell", Execution, Severity::Medium, Domain::Command)
    },
];
