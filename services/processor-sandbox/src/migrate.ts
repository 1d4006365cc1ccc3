// The sandbox has no database: nothing to migrate.
