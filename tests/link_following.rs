//! READ (link following) end to end: the built-in reasoner on a real index
//! in the real engine. On a small garden handbook written here, the section
//! that answers the question links a tool's page that says little of the
//! question's words; no query built from the question reaches it, the link
//! of the kept section does, the read is recorded in the reflection log, and
//! the page ends up among the kept sources.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is a panic

use std::path::Path;
use std::sync::Arc;

use crate::support::local_engine::{builtin_reasoner, local_parts};

use sleuth::engine::protocol::{Command, Event, Limits};
use sleuth::engine::settings::EngineSettings;
use sleuth::engine::{Engine, SessionState};
use sleuth::search::local::{self, LocalConfig, LocalCorpus};

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

fn html(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html><html lang=\"en\"><head><title>{title}</title></head><body>\
         <nav><a href=\"/garden/index.html\">Handbook</a></nav><main>{body}</main></body></html>"
    )
}

const TARGET: &str = "garden/tools/cloche.html";

/// A garden handbook: one section answers how seedlings are kept from
/// frost and links the tools it names (one of them missing); many pages speak of frost and
/// seedlings at length; the tools' pages hardly do.
fn garden(root: &Path) {
    write(
        root,
        "garden/index.html",
        &html(
            "Garden handbook",
            "<h1>Garden handbook</h1>\
             <p>This handbook covers sowing, planting out and caring for a vegetable garden through the year.</p>\
             <h2 id=\"frost\">Protecting seedlings from frost</h2>\
             <p>Gardeners protect seedlings from frost at night with a \
             <a href=\"tools/cloche.html\">cloche</a> over each one. A whole bed of seedlings is protected from frost with \
             <a href=\"tools/fleece.html\">fleece</a> laid loosely over it, or with \
             <a href=\"tools/straw.html\">straw</a>.</p>\
             <h2 id=\"water\">Watering</h2>\
             <p>Water young plants in the morning with a <a href=\"tools/can.html\">watering can</a> fitted with a rose.</p>",
        ),
    );
    write(
        root,
        TARGET,
        &html(
            "Cloche",
            "<h1>Cloche</h1>\
             <p>A cloche is a bell-shaped cover of glass or clear plastic set over a single young plant.</p>\
             <p>During the day it gathers the heat of the sun, and overnight it holds the warmth the soil gives \
             off around the plant, which is enough to carry a seedling through a light frost.</p>\
             <p>Lift the cloche on warm mornings so that the plant beneath does not overheat or rot.</p>",
        ),
    );
    write(
        root,
        "garden/tools/fleece.html",
        &html(
            "Fleece",
            "<h1>Fleece</h1>\
             <p>Horticultural fleece is a light woven sheet that lets rain and light through.</p>\
             <p>Laid over a bed it holds a layer of still air above the soil, a few degrees warmer than the night \
             around it. Weigh its edges down with stones so that wind cannot lift it.</p>",
        ),
    );
    write(
        root,
        "garden/tools/can.html",
        &html(
            "Watering can",
            "<h1>Watering can</h1>\
             <p>A watering can with a fine rose breaks the water into drops that do not wash soil away from roots.</p>",
        ),
    );
    let pages = [
        (
            "garden/frost-dates.html",
            "Frost dates",
            "Frost is likely on clear and still nights in spring. The last frost date of a region says when frost \
             stops being likely. Seedlings planted out before the last frost date are at risk of frost. Frost \
             forms first in hollows where cold air gathers. A late frost can still come after a warm week.",
        ),
        (
            "garden/sowing.html",
            "Sowing seeds",
            "Sow seeds in trays of fine compost and keep them moist. Seedlings appear after one to three weeks. \
             Seedlings need plenty of light or they grow tall and weak. Thin the seedlings so that each has room. \
             Seedlings raised indoors are tender and dislike frost.",
        ),
        (
            "garden/hardening.html",
            "Hardening off",
            "Seedlings raised indoors must get used to outdoor air before planting out. Put the seedlings outside \
             for a few hours a day, longer each day, over two weeks. Bring seedlings in when frost is forecast. \
             Hardened seedlings cope better with wind, sun and a cold night than soft ones.",
        ),
        (
            "garden/frost-damage.html",
            "Frost damage",
            "Frost damage shows as blackened, limp leaves the morning after a frost. Frost bursts the cells of \
             tender leaves as the water inside them freezes. Seedlings with frost damage rarely recover. Tender \
             crops such as beans and squash suffer most from frost.",
        ),
        (
            "garden/greenhouse.html",
            "Greenhouse",
            "A greenhouse keeps seedlings warmer than the open garden. An unheated greenhouse still lets frost in on \
             the coldest nights. A small heater keeps frost out of a greenhouse full of seedlings. Open the vents \
             on sunny days so the seedlings do not scorch.",
        ),
        (
            "garden/pricking-out.html",
            "Pricking out",
            "Pricking out moves seedlings from a crowded tray into pots of their own. Hold seedlings by a leaf, \
             never by the stem. Pricked out seedlings need a few days out of strong sun. Seedlings in pots can \
             stay indoors until the frost has passed.",
        ),
        (
            "garden/cold-frame.html",
            "Cold frame",
            "A cold frame is a low box with a clear lid where seedlings wait between the house and the garden. \
             Close the lid when frost is forecast and open it on mild days. Seedlings in a cold frame harden off \
             slowly. A cold frame keeps the worst frost off the seedlings.",
        ),
        (
            "garden/mulch.html",
            "Mulch",
            "Mulch is a layer of straw, leaves or compost spread over the soil. Mulch keeps the roots of plants \
             warmer in frost and moister in summer. Pull mulch back from seedlings so slugs do not hide against \
             them. Frost lifts bare soil, and mulch stops it.",
        ),
        (
            "garden/windowsill.html",
            "Windowsill growing",
            "A bright windowsill is enough to raise seedlings in early spring. Turn the seedlings daily so they grow \
             straight. A windowsill can get cold at night, and frost on the glass chills seedlings near it. Move \
             seedlings away from the glass on frosty nights.",
        ),
        (
            "kitchen/soup.html",
            "Vegetable soup",
            "Soften onions in butter, add chopped vegetables and stock, and simmer until tender. Season the soup \
             with salt and pepper and blend it smooth or leave it chunky.",
        ),
        (
            "kitchen/bread.html",
            "Bread",
            "Mix flour, water, salt and yeast into a dough and knead it until smooth. Let the dough rise, shape a \
             loaf and bake it in a hot oven until the crust is brown.",
        ),
    ];
    for (rel, title, text) in pages {
        write(root, rel, &html(title, &format!("<h1>{title}</h1><p>{text}</p>")));
    }
}

fn corpus(root: &Path, home: &Path) -> Arc<LocalCorpus> {
    let cfg = LocalConfig { corpus: Some(root.to_path_buf()), ..LocalConfig::default() };
    local::shared(&cfg, &home.join("index"), &|_: &str| {}).expect("corpus opens")
}

/// Runs a session that goes on to its last iteration (no early OUTPUT), so
/// that every REFINE runs; `follow` gives the reasoner the corpus's links.
async fn session(corpus: Arc<LocalCorpus>, question: &str, follow: bool, iterations: u32) -> SessionState {
    let limits = Limits {
        max_iterations: iterations,
        max_queries: 6,
        max_sources: 8,
        time_limit_secs: 60,
        cost_budget_usd: 0.0,
        token_budget: 0,
    };
    let mut settings = EngineSettings::with_limits("test", limits);
    settings.memory.enabled = false;
    settings.decide.confidence_threshold = 1.1;
    settings.decide.convergence_similarity = 1.1;
    settings.decide.diminishing_returns_threshold = -1.0;
    let reasoner = builtin_reasoner(&corpus);
    let reasoner = if follow { reasoner.with_links(corpus.clone()) } else { reasoner };
    let parts = local_parts(corpus, reasoner);
    let (engine, handle) = Engine::new(settings, parts, SessionState::default());
    handle.commands.send(Command::Start { question: question.into() }).expect("start");
    let task = tokio::spawn(engine.run());
    let mut rx = handle.events;
    while let Some(r) = rx.recv().await {
        if matches!(r.event, Event::SessionEnded { .. }) {
            break;
        }
    }
    task.await.expect("engine task").expect("engine run")
}

/// Every query of the session with its intent (for failure messages).
fn queries(state: &SessionState) -> Vec<String> {
    state
        .iterations
        .iter()
        .flat_map(|it| &it.queries)
        .map(|q| format!("{} ({})", q.query.text, q.query.intent))
        .collect()
}

fn sources(state: &SessionState) -> Vec<String> {
    state.sources.iter().map(|s| format!("{} via “{}” kept={}", s.meta.canonical, s.meta.query, s.kept())).collect()
}

const QUESTION: &str = "How do gardeners protect seedlings from frost?";

#[tokio::test]
async fn link_following_adds_a_page_that_no_query_found() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (root, home) = (dir.path().join("docs"), dir.path().join("home"));
    garden(&root);
    let c = corpus(&root, &home);
    let direct = c.search(QUESTION, &[], 10).expect("search");
    assert!(direct.iter().all(|h| h.path != TARGET), "the question alone finds {TARGET}: {direct:#?}");

    // Without links, the loop never reaches the tool's page.
    let plain = session(c.clone(), QUESTION, false, 2).await;
    assert!(
        plain.sources.iter().all(|s| s.meta.canonical != TARGET),
        "found without following a link: {:#?}\n{:#?}",
        sources(&plain),
        queries(&plain)
    );

    let state = session(c, QUESTION, true, 2).await;
    let (queries, found) = (queries(&state), sources(&state));
    // The read is a query of the refinement, recorded with why.
    let read = state
        .iterations
        .iter()
        .flat_map(|it| &it.queries)
        .find(|q| q.query.text == TARGET)
        .unwrap_or_else(|| panic!("no read of {TARGET}; queries: {queries:#?}"));
    assert!(
        read.query.intent.starts_with("read: follow the link from [")
            && read.query.intent.contains("“Protecting seedlings from frost”")
            && read.query.intent.contains("“cloche”"),
        "{}",
        read.query.intent
    );
    let refinement = state
        .iterations
        .iter()
        .find(|it| it.queries.iter().any(|q| q.query.text == TARGET))
        .and_then(|it| it.reflection.as_ref())
        .expect("the reading iteration has a reflection");
    assert!(
        refinement.assumptions.iter().any(|a| a.starts_with("READ:") && a.contains(TARGET)),
        "{:#?}",
        refinement.assumptions
    );
    // A link to a page the index does not hold is not read.
    assert!(!queries.iter().any(|q| q.starts_with("garden/tools/straw.html")), "{queries:#?}");
    // The page was first found by that read and kept: the kept section
    // that named it vouches for it.
    let source = state
        .sources
        .iter()
        .find(|s| s.meta.canonical == TARGET)
        .unwrap_or_else(|| panic!("{TARGET} is not a source: {found:#?}"));
    assert_eq!(source.meta.query, TARGET, "first found by another query: {found:#?}");
    assert!(source.kept(), "{TARGET} was rejected: {:?}\n{found:#?}", source.verdict);
    let verdict = source.verdict.as_ref().expect("reviewed");
    assert!(
        verdict.signals.iter().any(|x| x.starts_with("read: linked from [")),
        "the verdict says which source vouched for it: {verdict:?}"
    );
}

#[tokio::test]
async fn a_page_is_read_once_per_session() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (root, home) = (dir.path().join("docs"), dir.path().join("home"));
    garden(&root);
    let c = corpus(&root, &home);
    let state = session(c, QUESTION, true, 3).await;
    let reads = |state: &SessionState| -> Vec<String> {
        state
            .iterations
            .iter()
            .flat_map(|it| &it.queries)
            .filter(|q| q.query.intent.starts_with("read:"))
            .map(|q| q.query.text.clone())
            .collect()
    };
    let mut seen = reads(&state);
    assert!(!seen.is_empty(), "{:#?}", queries(&state));
    let n = seen.len();
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), n, "a page was read twice: {:#?}", queries(&state));
}

#[tokio::test]
async fn a_link_in_the_heading_of_the_answering_section_is_followed() {
    // The section's heading names the tool ("Use a cloche when:"); the list
    // under it never says the word, nor does the question.
    let dir = tempfile::tempdir().expect("tempdir");
    let (root, home) = (dir.path().join("docs"), dir.path().join("home"));
    garden(&root);
    write(
        &root,
        "garden/index.html",
        &html(
            "Garden handbook",
            "<h1>Garden handbook</h1>\
             <p>This handbook covers sowing, planting out and caring for a vegetable garden through the year.</p>\
             <h2 id=\"one\">Use a <a href=\"tools/cloche.html\">cloche</a> when:</h2>\
             <ul><li>Gardeners protect seedlings from frost at night, one plant at a time.</li>\
             <li>The seedlings stand in open ground where frost settles.</li></ul>\
             <h2 id=\"water\">Watering</h2>\
             <p>Water young plants in the morning with a <a href=\"tools/can.html\">watering can</a> fitted with a rose.</p>",
        ),
    );
    let c = corpus(&root, &home);
    let state = session(c, QUESTION, true, 2).await;
    let read = state
        .iterations
        .iter()
        .flat_map(|it| &it.queries)
        .find(|q| q.query.text == TARGET)
        .unwrap_or_else(|| panic!("no read of {TARGET}; queries: {:#?}", queries(&state)));
    assert!(read.query.intent.contains("“Use a cloche when:”"), "{}", read.query.intent);
}
