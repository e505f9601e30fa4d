//! A corpus shared by several test crates: six pages on two unrelated
//! meanings of "mercury" (a planet, a metal), on which the built-in reasoner
//! asks which one is meant.

use std::path::Path;

fn write(root: &Path, rel: &str, text: String) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// Six pages on two meanings of one word: the built-in reasoner asks which.
pub fn mercury_docs(root: &Path) {
    let planet = [
        (
            "planet/overview.md",
            "Mercury the planet",
            "Mercury is the smallest planet of the solar system and the closest planet to the sun. Its orbit around the sun takes eighty-eight days, the shortest orbit of any planet. The surface of the planet is covered in craters.",
        ),
        (
            "planet/orbit.md",
            "The orbit of Mercury",
            "Mercury moves on an eccentric orbit around the sun. Astronomers measured the precession of its orbit, which general relativity explained. The planet has almost no atmosphere, so craters and cliffs cover its surface.",
        ),
        (
            "planet/missions.md",
            "Missions to Mercury",
            "Two spacecraft have visited the planet Mercury: one flew past the planet three times and another orbited it for years. They mapped the craters of the planet and studied how the sun heats its surface during its orbit.",
        ),
    ];
    let metal = [
        (
            "element/overview.md",
            "Mercury the element",
            "Mercury is a chemical element and the only metal that is liquid at room temperature. The liquid metal is dense and silvery, and it was once common in thermometers. Mercury vapour is toxic, so the metal must be handled with care.",
        ),
        (
            "element/toxicity.md",
            "Toxicity of mercury",
            "Mercury compounds are toxic to the nervous system. The metal and its vapour accumulate in fish, and eating contaminated fish is the main way people take in the element. Old thermometers release the toxic liquid when they break.",
        ),
        (
            "element/uses.md",
            "Uses of mercury",
            "The liquid metal mercury was used in thermometers, barometers and dental fillings. Gold miners mix the element with ore because the metal dissolves gold, which releases toxic vapour. Many countries have since banned the metal in thermometers.",
        ),
    ];
    for (rel, title, text) in planet.iter().chain(metal.iter()) {
        write(root, rel, format!("# {title}\n\n{text}\n"));
    }
}
