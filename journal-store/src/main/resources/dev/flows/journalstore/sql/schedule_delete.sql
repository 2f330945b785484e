DELETE FROM flows.schedules WHERE name = :name
