// starter
