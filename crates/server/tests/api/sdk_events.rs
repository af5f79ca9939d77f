//! The SDK's change-feed stream against the real feed: a consumer that stops after any event, saves the stream's
//! cursor and starts again from it sees every event once, in order.

use std::time::Duration;

use client::futures_util::StreamExt;
use client::wire::establishments::NewEstablishment;
use client::wire::events::Event;
use client::{Client, EventStream, Filters};

use crate::helpers::integrator;
use crate::on_both_backends;

/// Long enough for PostgreSQL's feed to show a committed change (it waits for older transactions) and a poll.
const WAIT: Duration = Duration::from_secs(20);

async fn take(events: &mut EventStream, count: usize) -> Vec<Event> {
    let mut taken = Vec::new();
    while taken.len() < count {
        let event = tokio::time::timeout(WAIT, events.next())
            .await
            .expect("an event within the wait")
            .expect("the stream goes on")
            .expect("an event");
        taken.push(event);
    }
    taken
}

async fn create(api: &Client, farmer_id: i64, count: usize, tag: &str) -> Vec<i64> {
    let mut ids = Vec::new();
    for n in 0..count {
        let body = NewEstablishment {
            name: format!("Eventos {tag} {n}"),
            farmer_id,
            external_code: None,
            active: None,
        };
        ids.push(api.create_establishment(&body).await.expect("create").id);
    }
    ids
}

on_both_backends! {
    async fn the_event_stream_resumes_from_its_cursor_and_sees_every_event_once(app) {
        let api = Client::builder(&app.base).build().expect("a client");
        let account = integrator("AR");
        api.login(account.email, account.password).await.expect("login");
        let farmer = api.farmers(&Filters::new()).next().await.expect("a farmer").expect("farmers").id;
        let types = ["establishment.*"];

        let head = api.event_page(Some(client::NOW), &types, 1).await.expect("the head").next_cursor;
        let mut events = api.events(Some(&head), &types);
        let first = create(&api, farmer, 5, "a").await;
        let mut seen = take(&mut events, 3).await;
        let inside_a_page = events.cursor().expect("a cursor");
        drop(events);

        let second = create(&api, farmer, 2, "b").await;
        let mut events = api.events(Some(&inside_a_page), &types);
        seen.extend(take(&mut events, 4).await);
        let after_all = events.cursor().expect("a cursor");
        drop(events);

        let third = create(&api, farmer, 1, "c").await;
        api.delete_establishment(third[0]).await.expect("delete");
        let mut events = api.events(Some(&after_all), &types);
        seen.extend(take(&mut events, 2).await);
        assert!(
            tokio::time::timeout(Duration::from_millis(2500), events.next()).await.is_err(),
            "nothing more than what was written"
        );

        let expected: Vec<(String, i64)> = first
            .iter()
            .chain(&second)
            .chain(&third)
            .map(|id| ("establishment.created".to_owned(), *id))
            .chain([("establishment.deleted".to_owned(), third[0])])
            .collect();
        let got: Vec<(String, i64)> = seen.iter().map(|e| (e.kind.clone(), e.resource_id)).collect();
        assert_eq!(got, expected, "every change once, in commit order");
        let mut ids: Vec<i64> = seen.iter().map(|e| e.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), seen.len(), "no event twice");
    }
}
