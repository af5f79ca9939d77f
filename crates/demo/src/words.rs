//! The demo's words by language: every text the generators write that is not one country's own (the names, farms,
//! scouts and notes each group's country table holds), and the catalogue rows (by reference key) whose names a
//! society's records show. A society writes in its country's language, so the Brazilian society's records are all
//! in Brazilian Portuguese and the others' in Spanish; a generator takes its texts from here and never spells one.

/// What an order's labour line does, in the order [`Words::labours`] lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Labour {
    /// Spraying with a ground sprayer.
    GroundSpraying,
    /// Spraying from an aircraft.
    AerialSpraying,
    /// Sowing.
    Sowing,
    /// Spreading fertiliser.
    Fertilising,
    /// Harvesting.
    Harvesting,
    /// Walking the plots for pests and weeds.
    Scouting,
    /// Working the soil.
    Tillage,
}

/// A labour as the shipped catalogues name it: its voucher type's and its labour type's reference keys.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LabourKeys {
    /// The voucher type (`voucher_types.reference_key`) of orders doing it.
    pub voucher: &'static str,
    /// The labour type (`labour_types.reference_key`).
    pub labour: &'static str,
}

/// One language's texts.
#[derive(Debug)]
pub(crate) struct Words {
    /// The labours, by [`Labour`] in declaration order.
    labours: [LabourKeys; 7],
    /// The column of `species` that names a crop in this language.
    pub species_name: &'static str,
    /// The voucher code in an order's ERP id (`ERP-OT-000001`).
    pub order_code: &'static str,
    /// A farmer's observation.
    pub farmer_note: &'static str,
    /// A silobag row's note when its grain needs watching.
    pub silobag_note: &'static str,
    /// A silobag's content when no campaign's harvest filled it.
    pub grain: &'static str,
    /// Who scouted, when a country lists no scout.
    pub scout: &'static str,
    /// A weather station's name, before its number.
    pub weather_station: &'static str,
    /// A silobag sensor's name, before its number.
    pub silobag_sensor: &'static str,
}

impl Words {
    /// The catalogue keys of `labour`.
    pub fn labour(&self, labour: Labour) -> LabourKeys {
        self.labours[labour as usize]
    }
}

const fn keys(voucher: &'static str, labour: &'static str) -> LabourKeys {
    LabourKeys { voucher, labour }
}

/// Spanish, as the platform's catalogues are.
const ES: Words = Words {
    labours: [
        keys("voucher.oa", "labour.pulverizacion-terrestre"),
        keys("voucher.oa", "labour.pulverizacion-aerea"),
        keys("voucher.os", "labour.siembra-directa"),
        keys("voucher.of", "labour.fertilizacion-al-voleo"),
        keys("voucher.oc", "labour.cosecha"),
        keys("voucher.ot", "labour.monitoreo"),
        keys("voucher.ot", "labour.labranza"),
    ],
    species_name: "name",
    order_code: "OT",
    farmer_note: "Cliente desde 2015",
    silobag_note: "Controlar temperatura y CO2 semanalmente.",
    grain: "Grano",
    scout: "Agrónomo",
    weather_station: "Estación meteorológica",
    silobag_sensor: "Sensor de silobolsa",
};

/// Brazilian Portuguese: every work is an ordem de serviço (OS), a plot a talhão, a crop a cultura.
const PT: Words = Words {
    labours: [
        keys("voucher.br.os", "labour.br.pulverizacao-terrestre"),
        keys("voucher.br.os", "labour.br.pulverizacao-aerea"),
        keys("voucher.br.os", "labour.br.plantio-direto"),
        keys("voucher.br.os", "labour.br.adubacao-a-lanco"),
        keys("voucher.br.os", "labour.br.colheita"),
        keys("voucher.br.os", "labour.br.monitoramento"),
        keys("voucher.br.os", "labour.br.preparo-de-solo"),
    ],
    species_name: "name_pt",
    order_code: "OS",
    farmer_note: "Cliente desde 2015",
    silobag_note: "Monitorar temperatura e CO2 semanalmente.",
    grain: "Grãos",
    scout: "Agrônomo",
    weather_station: "Estação meteorológica",
    silobag_sensor: "Sensor de silo bolsa",
};

/// The words of a society of `country`.
pub(crate) fn words(country: &str) -> &'static Words {
    match country {
        "BR" => &PT,
        _ => &ES,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_labour_has_its_place_in_every_language() {
        let all = [
            Labour::GroundSpraying,
            Labour::AerialSpraying,
            Labour::Sowing,
            Labour::Fertilising,
            Labour::Harvesting,
            Labour::Scouting,
            Labour::Tillage,
        ];
        for words in [&ES, &PT] {
            let labours: Vec<&str> = all.iter().map(|labour| words.labour(*labour).labour).collect();
            let mut distinct = labours.clone();
            distinct.sort_unstable();
            distinct.dedup();
            assert_eq!(distinct.len(), all.len(), "{labours:?}");
        }
        assert!(words("BR").labour(Labour::Harvesting).labour.starts_with("labour.br."));
        assert_eq!(words("AR").labour(Labour::Harvesting).labour, "labour.cosecha");
    }
}
