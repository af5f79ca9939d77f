//! The field: scouting, scouting measures, waypoints, adversities, progress, field controls, silobags, weather, IoT devices and events.
