//! Every catalogue's rows can be switched off and on by the operator (`admin reference deactivate|activate`), on
//! both backends: the property holds for every table the reference data ships, so the test is made from that list.

use store::bulk::Kind;
use store::Arg;

use crate::helpers::Setup;
use crate::on_both_backends_with;

on_both_backends_with! {
    Setup { seed: false, ..Setup::default() };

    async fn every_catalogue_row_can_be_switched_off_and_on(app) {
        for table in store::reference::catalogue_tables() {
            let rows = app
                .store
                .read_rows(table, &[("id", Kind::Int), ("active", Kind::Bool)], &[])
                .await
                .expect("read the catalogue");
            let id = rows
                .first()
                .and_then(|row| row[0].int())
                .unwrap_or_else(|| panic!("{table} ships rows"));
            for active in [false, true] {
                let found = app
                    .store
                    .set_reference_active(table, &id.to_string(), active)
                    .await
                    .unwrap_or_else(|error| panic!("{table}: switching row {id} to {active}: {error}"));
                assert!(found, "{table}: row {id} exists");
                let stored = app
                    .store
                    .read_rows(table, &[("active", Kind::Bool)], &[("id", Arg::Int(id))])
                    .await
                    .expect("read the row");
                assert_eq!(stored, [[Arg::Bool(active)]], "{table}: row {id}");
            }
        }
    }
}
