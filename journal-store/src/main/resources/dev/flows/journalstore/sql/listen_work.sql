LISTEN flows_work
