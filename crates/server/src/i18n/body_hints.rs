//! A body refusal's words about the body as a whole ([`Hint`]), after its problems: advice an integrator needs when the
//! problems come from taking a write for what it is not.

use domain::Lang;

use crate::body::{BodyError, Hint};

/// `error`'s message in `lang`, with its hint, if it has one.
pub fn body_text(error: &BodyError, lang: Lang) -> String {
    let problems = error.text(lang);
    match error.hint() {
        None => problems,
        Some(hint) => format!("{problems} {}", hint_text(hint, lang)),
    }
}

fn hint_text(hint: &Hint, lang: Lang) -> String {
    match (hint, lang) {
        (Hint::WholeOrder { local_id }, Lang::Es) => format!(
            "Un PATCH lleva la orden de trabajo entera (header, supplies y labours), no solo lo que cambia: léala con \
             GET /api/v3/third_party/work_orders/{local_id}, cambie lo necesario en esa respuesta y envíela completa."
        ),
        (Hint::WholeOrder { local_id }, Lang::Pt) => format!(
            "Um PATCH leva a ordem de serviço inteira (header, supplies e labours), não só o que muda: leia-a com \
             GET /api/v3/third_party/work_orders/{local_id}, altere o necessário nessa resposta e envie-a completa."
        ),
        (Hint::WholeOrder { local_id }, Lang::En) => format!(
            "A PATCH carries the whole work order (header, supplies and labours), not only what changes: read it with \
             GET /api/v3/third_party/work_orders/{local_id}, change what you need in that answer and send it whole."
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::{Problem, Segment};

    #[test]
    fn a_hint_follows_the_problems_in_each_language() {
        let missing = BodyError::at(vec![Segment::Key("supplies".to_owned())], Problem::Missing);
        assert_eq!(
            body_text(&missing, Lang::En),
            missing.text(Lang::En),
            "no hint, no words"
        );
        let hinted = missing.with_hint(Hint::WholeOrder {
            local_id: "12".to_owned(),
        });
        assert_eq!(
            body_text(&hinted, Lang::Pt),
            "O corpo da requisição não é válido: falta o campo obrigatório supplies. Um PATCH leva a ordem de serviço \
             inteira (header, supplies e labours), não só o que muda: leia-a com GET \
             /api/v3/third_party/work_orders/12, altere o necessário nessa resposta e envie-a completa."
        );
        assert!(body_text(&hinted, Lang::Es).ends_with("envíela completa."));
    }
}
