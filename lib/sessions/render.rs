//! Text renderings of hermes-index's answers, for a person at a terminal.

use super::check::{Finding, Repair};
use super::cjk_index::CatchUp;
use super::ingest;
use super::maintain::{Optimized, Rebuilt};
use super::migrate::SchemaReport;
use super::stats::Stats;

/// `1.2 MB`, `118.0 MB`, `512 B`.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if n < 1000 {
        return format!("{n} B");
    }
    let mut value = n as f64 / 1000.0;
    let mut unit = 0;
    while value >= 1000.0 && unit + 1 < UNITS.len() {
        value /= 1000.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

pub fn init(path: &std::path::Path, schema: &SchemaReport, cjk: &CatchUp) -> String {
    let state = if schema.created {
        format!("created (schema v{})", schema.version)
    } else {
        match schema.from_version {
            Some(v) if v < schema.version => format!("migrated v{v} → v{}", schema.version),
            _ => format!("schema v{}, up to date", schema.version),
        }
    };
    let mut extra = Vec::new();
    if !schema.columns_added.is_empty() {
        extra.push(format!("{} columns added", schema.columns_added.len()));
    }
    if schema.fts_repopulated {
        extra.push("full-text tables repopulated".into());
    }
    if schema.titles_cleared > 0 {
        extra.push(format!(
            "{} duplicate titles cleared",
            schema.titles_cleared
        ));
    }
    let extra = if extra.is_empty() {
        String::new()
    } else {
        format!(" ({})", extra.join(", "))
    };
    format!("{}: {state}{extra}\n{}", path.display(), catch_up(cjk))
}

pub fn catch_up(cjk: &CatchUp) -> String {
    if cjk.rebuilt {
        format!(
            "CJK index: built from {} messages ({} with CJK text)",
            cjk.scanned, cjk.indexed
        )
    } else if cjk.scanned > 0 || cjk.pending > 0 {
        format!(
            "CJK index: caught up {} messages ({} changed), watermark {}",
            cjk.scanned, cjk.pending, cjk.watermark
        )
    } else {
        format!("CJK index: current (watermark {})", cjk.watermark)
    }
}

pub fn ingested(s: &ingest::Summary) -> String {
    format!(
        "ingested {} sessions, {} messages ({} already present) in {:.2} s",
        s.sessions, s.messages, s.skipped, s.seconds
    )
}

pub fn rebuilt(r: &Rebuilt) -> String {
    format!(
        "rebuilt messages_fts ({} rows), messages_fts_trigram ({} rows), messages_fts_cjk ({} documents) from {} messages in {:.2} s",
        r.fts_rows, r.trigram_rows, r.cjk_rows, r.messages, r.seconds
    )
}

pub fn optimized(o: &Optimized) -> String {
    format!(
        "optimized: {} → {} in {:.2} s",
        bytes(o.bytes_before),
        bytes(o.bytes_after),
        o.seconds
    )
}

pub fn findings(findings: &[Finding], repairs: &[Repair]) -> String {
    let mut out = String::new();
    for f in findings {
        out.push_str(&format!(
            "{:<4} {:<21} {}\n",
            if f.ok { "ok" } else { "FAIL" },
            f.check,
            f.detail
        ));
    }
    for r in repairs {
        out.push_str(&format!("fix  {:<21} {}\n", r.action, r.detail));
    }
    out.pop();
    out
}

pub fn stats(s: &Stats) -> String {
    use crate::io::table::{self, thousands};
    let mut out = format!(
        "{}\n  file {} + wal {} ({} pages of {} B, {} free), journal {}, schema v{}\n",
        s.path.display(),
        bytes(s.file_bytes),
        bytes(s.wal_bytes),
        s.pages,
        s.page_size,
        s.free_pages,
        s.journal_mode,
        s.schema_version.map_or("?".into(), |v| v.to_string()),
    );
    out.push_str(&format!(
        "  {} sessions, {} messages ({} inactive)\n\nsource            sessions   messages\n",
        thousands(s.sessions),
        thousands(s.messages),
        thousands(s.inactive_messages)
    ));
    for src in &s.sources {
        out.push_str(&format!(
            "  {} {:>8} {:>10}\n",
            table::pad(&src.source, 15),
            thousands(src.sessions),
            thousands(src.messages)
        ));
    }
    out.push_str("\nfull-text index         bytes\n");
    for f in &s.full_text {
        out.push_str(&format!("  {:<21} {:>9}\n", f.name, bytes(f.bytes)));
    }
    out.push_str("\nlargest objects                      bytes  kind   owner\n");
    for o in s.objects.iter().take(12) {
        let line = format!(
            "  {:<32} {:>9}  {:<6} {}",
            o.name,
            bytes(o.bytes),
            o.kind,
            o.owner
        );
        out.push_str(line.trim_end());
        out.push('\n');
    }
    let c = &s.cjk;
    out.push_str(&format!(
        "\nCJK index: {}watermark {} of {}, {} behind, {} pending",
        if c.present { "" } else { "not built; " },
        c.watermark,
        c.max_id,
        c.behind,
        c.pending
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_are_decimal_units() {
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(1_500), "1.5 KB");
        assert_eq!(bytes(117_900_000), "117.9 MB");
        assert_eq!(bytes(100_000_000_000), "100.0 GB");
    }
}
