/* csv-write.c: being written */
