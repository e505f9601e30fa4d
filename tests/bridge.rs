//! The vocabulary bridge end to end, on the real binary: on a small garden
//! handbook written here, many pages repeat the question's words; the page
//! of the tool that answers it says them once, in the sentence that
//! defines it, and is named with a word the question never uses. No query
//! of the question's own words finds it, and no sentence they find says
//! both "protect" and "seedling"; the definitions index does, a refinement
//! reads the page, and `sleuth run --json` shows the bridge's read with the
//! definition quoted as its intent. `SLEUTH_HOME` is a temp dir.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::path::Path;

use crate::support::bin;
use serde_json::Value;

const TARGET: &str = "tools/cloche.md";
const QUESTION: &str = "How do I protect seedlings from frost?";

/// Pages that speak of frost and seedlings at length, and the tool's page
/// that defines it with those words once.
fn garden(root: &Path) {
    let pages: &[(&str, &str)] = &[
        (
            TARGET,
            "# Cloche\n\nA bell of glass that protects a seedling from frost.\n\n\
             It is set over a single young plant in early spring. During the day it gathers the heat of the sun, \
             and overnight it holds the warmth the soil gives off around the plant. Lift it on warm mornings so \
             that the plant beneath does not overheat or rot. Old jam jars and cut plastic bottles serve the same \
             purpose on a small plot. Store glass ones indoors over summer where they cannot crack, and wash them \
             before use so that light reaches the leaves.\n",
        ),
        (
            "frost-dates.md",
            "# Frost dates\n\nFrost is likely on clear and still nights in spring. The last frost date says when frost stops being likely. Seedlings planted out before that date meet frost. Frost forms first in hollows. Walls protect a garden from cold wind. Seedlings grow slowly in cold soil.\n",
        ),
        (
            "sowing.md",
            "# Sowing seeds\n\nSow seeds in trays of fine compost. Seedlings appear after one to three weeks. Seedlings need plenty of light. Thin the seedlings so that each has room. A lid protects the tray from drying out. Seedlings raised indoors are tender and frost kills them.\n",
        ),
        (
            "hardening.md",
            "# Hardening off\n\nSeedlings raised indoors must get used to outdoor air. Put the seedlings outside for a few hours a day. Bring seedlings in when frost is forecast. A hedge protects the bed from wind. Hardened seedlings cope better with frost than soft ones.\n",
        ),
        (
            "frost-damage.md",
            "# Frost damage\n\nFrost damage shows as blackened leaves after a frost. Frost bursts the cells of tender leaves. Seedlings with frost damage rarely recover. Tender seedlings such as beans suffer most from frost. Bark protects the trunk of a tree.\n",
        ),
        (
            "greenhouse.md",
            "# Greenhouse\n\nA greenhouse keeps seedlings warmer than the open garden. An unheated greenhouse still lets frost in. A small heater keeps frost out of a greenhouse full of seedlings. Shading paint protects the glass from scorching sun. Open the vents on sunny days.\n",
        ),
        (
            "pricking-out.md",
            "# Pricking out\n\nPricking out moves seedlings into pots of their own. Hold seedlings by a leaf. Pricked out seedlings need a few days out of strong sun. Seedlings in pots stay indoors until the frost has passed. Gloves protect hands from the compost.\n",
        ),
        (
            "cold-frame.md",
            "# Cold frame\n\nA cold frame is a low box where seedlings wait between the house and the garden. Close the lid when frost is forecast. Seedlings in a cold frame harden off slowly. Frost rarely reaches the seedlings inside. A coat of paint protects the wood.\n",
        ),
        (
            "mulch.md",
            "# Mulch\n\nMulch is a layer of straw spread over the soil. Mulch protects roots in winter. Pull mulch back from seedlings so slugs do not hide. Frost lifts bare soil, and mulch stops it. Seedlings push through thin mulch.\n",
        ),
        (
            "windowsill.md",
            "# Windowsill growing\n\nA bright windowsill is enough to raise seedlings. Turn the seedlings daily. A windowsill can get cold at night, and frost on the glass chills seedlings near it. Move seedlings away from the glass when frost comes. A blind protects them from midday sun.\n",
        ),
        (
            "watering.md",
            "# Watering\n\nWater seedlings in the morning so leaves dry before night, when frost may come. Wet seedlings suffer more from frost than dry ones. A fine rose protects the soil from washing away. Seedlings need less water in cold weather.\n",
        ),
        (
            "planting-out.md",
            "# Planting out\n\nPlant seedlings out once the danger of frost has passed. Seedlings planted out too early meet frost and stop growing. Water seedlings well after planting out. A fence protects the plot from rabbits. Frost in late spring still catches seedlings.\n",
        ),
    ];
    std::fs::create_dir_all(root.join("tools")).unwrap();
    for (rel, text) in pages {
        std::fs::write(root.join(rel), text).unwrap();
    }
}

/// `sleuth run --json` on the corpus: the event stream's records.
fn events(home: &Path, corpus: &Path) -> Vec<Value> {
    let out = bin::sleuth_cmd(home)
        .args(["run", "--json", "--ask", "first", "--set", &format!("local.corpus={}", corpus.display()), QUESTION])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 4)),
        "exit {:?}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

/// The event of each record (records may wrap it).
fn event(record: &Value) -> &Value {
    record.get("event").unwrap_or(record)
}

fn of_type<'a>(records: &'a [Value], kind: &str) -> Vec<&'a Value> {
    records.iter().map(event).filter(|e| e["type"] == kind).collect()
}

#[test]
fn the_bridge_reads_the_page_the_docs_define_with_the_questions_words() {
    let home = tempfile::tempdir().unwrap();
    let corpus = home.path().join("garden");
    garden(&corpus);
    let records = events(home.path(), &corpus);

    // A refinement reads the defined page, and says why.
    let refined = of_type(&records, "refined");
    let bridging = refined
        .iter()
        .map(|r| &r["refinement"])
        .find(|r| r["queries"].as_array().is_some_and(|qs| qs.iter().any(|q| q["text"] == TARGET)))
        .unwrap_or_else(|| panic!("no bridge to {TARGET}: {refined:#?}"));
    let queries = bridging["queries"].as_array().expect("queries");
    let bridge = queries.iter().find(|q| q["text"] == TARGET).expect("the bridge");
    let intent = bridge["intent"].as_str().expect("intent");
    assert!(
        intent.starts_with("bridge: “protect seedlings")
            && intent.ends_with("the docs define cloche as “A bell of glass that protects a seedling from frost.”"),
        "{intent}"
    );
    let assumptions = bridging["reflection"]["assumptions"].as_array().expect("assumptions");
    assert!(assumptions.iter().any(|a| a.as_str().is_some_and(|a| a.starts_with("BRIDGE:"))), "{assumptions:#?}");
    let planned = of_type(&records, "planned");
    let first = planned.first().expect("a first plan");
    assert!(
        !first["queries"].as_array().expect("queries").iter().any(|q| q["text"] == TARGET),
        "the first plan searches the question's own words"
    );

    // No query of the question's own words found the page: the bridge's
    // read is what brought it in, and review kept it.
    let added: Vec<&Value> = of_type(&records, "source_added")
        .into_iter()
        .filter(|e| e["source"]["canonical"].as_str().is_some_and(|c| c.ends_with(TARGET)))
        .collect();
    assert_eq!(added.len(), 1, "{TARGET} added once: {added:#?}");
    let source = &added[0]["source"];
    assert_eq!(source["query"], TARGET, "found first by another query: {source:#?}");
    let id = source["id"].clone();
    let kept = of_type(&records, "reviewed")
        .iter()
        .flat_map(|r| r["verdicts"].as_array().cloned().unwrap_or_default())
        .any(|v| v["id"] == id && v["kept"] == true);
    assert!(kept, "{TARGET} was not kept");
    let other_hits: Vec<&Value> = of_type(&records, "query_searched");
    assert!(other_hits.len() > 1, "the question's own queries ran too: {other_hits:#?}");
}
