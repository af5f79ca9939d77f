//! The words of a job's report: why each refused row was refused, as the API words a refused write of a campaign,
//! in the language the job recorded.

use domain::{Lang, Refusal};

use super::refusal::refusal_text;

/// Why a row of a job was refused, in `lang`: the refusal text of a campaign write (`campaign_id: 999 no existe o no
/// está disponible para su sociedad.`). The worker writes it into the job's `result`.
pub fn row_reason(refusal: &Refusal, lang: Lang) -> String {
    refusal_text("campaigns", "", refusal, lang)
}

#[cfg(test)]
mod tests {
    use domain::refusal::Expected;
    use domain::{Rule, Violation};

    use super::*;

    #[test]
    fn a_row_reads_as_a_refused_campaign_write() {
        let unknown = Refusal::Invalid(vec![Violation::new("campaign_id", Rule::Unknown(999))]);
        assert_eq!(
            row_reason(&unknown, Lang::Es),
            "campaign_id: 999 no existe o no está disponible para su sociedad."
        );
        let wrong = Rule::WrongType {
            expected: Expected::Number,
            sent: "cuatro".into(),
        };
        let wrong = Refusal::Invalid(vec![Violation::new("objective_yield", wrong)]);
        assert_eq!(
            row_reason(&wrong, Lang::Pt),
            "objective_yield deve ser um número (recebido \"cuatro\")."
        );
        assert_eq!(
            row_reason(&Refusal::DuplicateExternalCode(340), Lang::En),
            "The campaign 340 (campaigns) already has that external_code."
        );
    }
}
