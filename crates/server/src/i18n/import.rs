//! The words of `tranquera admin import` and `export`: a refused file's report (each row's reasons are the refusal
//! texts of the API's writes, so an operator and an integrator read one vocabulary) and a loaded file's summary, in
//! Spanish, Portuguese and English.

use domain::import::{Counts, Problem};
use domain::Lang;

use super::refusal::refusal_text;

/// One refused row: where, then why, as the API words a refused write of `resource`.
pub fn problem_line(resource: &'static str, problem: &Problem, lang: Lang) -> String {
    let place = match (problem.row, lang) {
        (0, Lang::Es) => "archivo".to_owned(),
        (0, Lang::Pt) => "arquivo".to_owned(),
        (0, Lang::En) => "file".to_owned(),
        (row, Lang::Es) => format!("fila {row}"),
        (row, Lang::Pt) => format!("linha {row}"),
        (row, Lang::En) => format!("row {row}"),
    };
    format!("{place}: {}", refusal_text(resource, "", &problem.refusal, lang))
}

/// The first line of a refused file's report.
pub fn refused_heading(file: &str, total: u64, lang: Lang) -> String {
    match (lang, total) {
        (Lang::Es, 1) => format!("No se importó {file}: tiene 1 problema; no se guardó nada."),
        (Lang::Es, _) => format!("No se importó {file}: tiene {total} problemas; no se guardó nada."),
        (Lang::Pt, 1) => format!("{file} não foi importado: tem 1 problema; nada foi salvo."),
        (Lang::Pt, _) => format!("{file} não foi importado: tem {total} problemas; nada foi salvo."),
        (Lang::En, 1) => format!("{file} was not imported: it has 1 problem; nothing was stored."),
        (Lang::En, _) => format!("{file} was not imported: it has {total} problems; nothing was stored."),
    }
}

/// The last line of a report that names only some of its problems.
pub fn unnamed(rest: u64, lang: Lang) -> String {
    match lang {
        Lang::Es => format!("… y {rest} problemas más, que se listarán al corregir los anteriores."),
        Lang::Pt => format!("… e mais {rest} problemas, que serão listados ao corrigir os anteriores."),
        Lang::En => format!("… and {rest} more problems, listed once the ones above are fixed."),
    }
}

/// What a loaded file did to `resource`; `encoding` names a file not read as UTF-8.
pub fn summary(resource: &str, counts: Counts, encoding: Option<&str>, lang: Lang) -> String {
    let Counts {
        created,
        updated,
        unchanged,
        deleted,
        absent,
    } = counts;
    let mut text = match lang {
        Lang::Es => format!(
            "{resource}: {created} creados, {updated} actualizados, {unchanged} sin cambios, {deleted} eliminados"
        ),
        Lang::Pt => format!(
            "{resource}: {created} criados, {updated} atualizados, {unchanged} sem alterações, {deleted} excluídos"
        ),
        Lang::En => {
            format!("{resource}: {created} created, {updated} updated, {unchanged} unchanged, {deleted} deleted")
        }
    };
    if absent > 0 {
        text.push_str(&match lang {
            Lang::Es => format!(" ({absent} bajas de códigos sin registro activo)"),
            Lang::Pt => format!(" ({absent} exclusões de códigos sem registro ativo)"),
            Lang::En => format!(" ({absent} deletions of codes with no live record)"),
        });
    }
    if let Some(encoding) = encoding {
        text.push_str(&match lang {
            Lang::Es => format!("; leído como {encoding}"),
            Lang::Pt => format!("; lido como {encoding}"),
            Lang::En => format!("; read as {encoding}"),
        });
    }
    text.push('.');
    text
}

/// What an export wrote, and what it left out: records without an `external_code`, which an import cannot match.
pub fn exported(resource: &str, written: u64, without_code: u64, lang: Lang) -> String {
    let mut text = match lang {
        Lang::Es => format!("{resource}: {written} registros exportados"),
        Lang::Pt => format!("{resource}: {written} registros exportados"),
        Lang::En => format!("{resource}: {written} records exported"),
    };
    if without_code > 0 {
        text.push_str(&match lang {
            Lang::Es => format!("; {without_code} sin external_code quedaron fuera (la importación empareja por él)"),
            Lang::Pt => format!("; {without_code} sem external_code ficaram de fora (a importação associa por ele)"),
            Lang::En => format!("; {without_code} without an external_code were left out (imports match by it)"),
        });
    }
    text.push('.');
    text
}

#[cfg(test)]
mod tests {
    use domain::refusal::Expected;
    use domain::{Refusal, Rule, Violation};

    use super::*;

    #[test]
    fn a_row_reads_as_a_refused_write_led_by_its_place() {
        let problem = Problem::invalid(
            7,
            vec![
                Violation::new("area", Rule::NotPositive(0.0)),
                Violation::new(
                    "active",
                    Rule::WrongType {
                        expected: Expected::Boolean,
                        sent: "quizás".into(),
                    },
                ),
            ],
        );
        assert_eq!(
            problem_line("plots", &problem, Lang::Es),
            "fila 7: area debe ser mayor que cero (se recibió 0); active debe ser un booleano (true o false, 1 o 0, sí \
             o no) (se recibió \"quizás\")."
        );
        let dependants = Problem {
            row: 3,
            refusal: Refusal::HasDependants {
                resource: "plots",
                count: 2,
            },
        };
        assert_eq!(
            problem_line("establishments", &dependants, Lang::Pt),
            "linha 3: Não é possível excluir: tem 2 talhões ativos (plots)."
        );
        let empty = Problem::invalid(0, vec![Violation::new("", Rule::EmptyFile)]);
        assert_eq!(
            problem_line("plots", &empty, Lang::En),
            "file: the file is empty (0 bytes)."
        );
    }

    #[test]
    fn summaries_count_what_changed() {
        let counts = Counts {
            created: 2,
            updated: 1,
            unchanged: 5,
            deleted: 0,
            absent: 1,
        };
        assert_eq!(
            summary("plots", counts, Some("windows-1252"), Lang::En),
            "plots: 2 created, 1 updated, 5 unchanged, 0 deleted (1 deletions of codes with no live record); read as \
             windows-1252."
        );
        assert_eq!(
            refused_heading("a.csv", 1, Lang::Es),
            "No se importó a.csv: tiene 1 problema; no se guardó nada."
        );
    }
}
