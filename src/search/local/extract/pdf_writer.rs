//! A minimal PDF writer for tests and benches: pages of Helvetica text
//! (one line per `\n`), an optional `/Title`, a correct cross-reference
//! table. Real PDF viewers and `pdftotext` read what it writes; it exists so
//! tests make the PDFs they read instead of shipping binaries.

use std::fmt::Write;

/// A PDF whose page `i` shows the lines of `pages[i]`; an empty string is
/// a page without text (as a scan's page is to a text extractor).
pub fn test_pdf(pages: &[&str], title: Option<&str>) -> Vec<u8> {
    // Objects: 1 catalog, 2 page tree, 3 font, 4 info, then a page and its
    // content stream per page.
    let mut objects: Vec<String> = Vec::new();
    let page_ids: Vec<usize> = (0..pages.len()).map(|i| 5 + 2 * i).collect();
    objects.push("<< /Type /Catalog /Pages 2 0 R >>".to_string());
    let kids: Vec<String> = page_ids.iter().map(|id| format!("{id} 0 R")).collect();
    objects.push(format!("<< /Type /Pages /Kids [{}] /Count {} >>", kids.join(" "), pages.len()));
    objects.push("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>".to_string());
    objects.push(match title {
        Some(t) => format!("<< /Title ({}) /Producer (sleuth tests) >>", escape(t)),
        None => "<< /Producer (sleuth tests) >>".to_string(),
    });
    for (i, text) in pages.iter().enumerate() {
        let content_id = page_ids[i] + 1;
        objects.push(format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] \
             /Resources << /Font << /F1 3 0 R >> >> /Contents {content_id} 0 R >>"
        ));
        let mut stream = String::new();
        if !text.trim().is_empty() {
            stream.push_str("BT /F1 11 Tf 14 TL 72 720 Td\n");
            for line in text.lines() {
                let _ = writeln!(stream, "({}) Tj T*", escape(line));
            }
            stream.push_str("ET\n");
        }
        objects.push(format!("<< /Length {} >>\nstream\n{stream}endstream", stream.len()));
    }
    let mut out = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n".to_vec();
    let mut offsets = Vec::with_capacity(objects.len());
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{body}\nendobj\n", i + 1).as_bytes());
    }
    let xref = out.len();
    let mut table = format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1);
    for o in &offsets {
        let _ = writeln!(table, "{o:010} 00000 n ");
    }
    let _ =
        write!(table, "trailer\n<< /Size {} /Root 1 0 R /Info 4 0 R >>\nstartxref\n{xref}\n%%EOF\n", objects.len() + 1);
    out.extend_from_slice(table.as_bytes());
    out
}

/// A PDF literal string's special characters escaped; non-Latin-1
/// characters become `?` (the test font's encoding has no others).
fn escape(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '(' | ')' | '\\' => format!("\\{c}"),
            c if (c as u32) < 0x20 || (c as u32) > 0x7e => "?".to_string(),
            c => c.to_string(),
        })
        .collect()
}
