# Write Quercus's bundled data sets with missing values, and the R test fixtures, as a user's
# R session writes them: utils::write.csv (quoted strings, NA for a missing value).
#
#   Rscript tools/make_na_datasets.R        (from the repository root; Debian: apt-get install
#                                            r-base-core r-cran-palmerpenguins)
library(palmerpenguins)  # CC0: Horst, Hill & Gorman (2020), Palmer Station LTER data

bundled <- "src/quercus/data/bundled"
fixtures <- "tests/data/reading"

# Bundled: no row-names column (row.names = FALSE), otherwise write.csv's defaults.
write.csv(as.data.frame(penguins), file.path(bundled, "penguins.csv"), row.names = FALSE)
write.csv(airquality, file.path(bundled, "airquality.csv"), row.names = FALSE)

# Fixtures: write.csv's defaults, the row names included as a first column named "".
rows <- c(1:6, 9:12, 272, 344)  # rows 4 and 272 have NA measurements, 4 and 9:11 NA sex
small <- as.data.frame(penguins)[rows, ]
small$tagged <- c(TRUE, FALSE, NA, TRUE, FALSE, TRUE, TRUE, FALSE, NA, TRUE, FALSE, TRUE)
small$note <- c("ok", "ok", NA, "re-measured", "ok", "ok", "NA", "ok", "ok", "ok", "ok", "ok")
write.csv(small, file.path(fixtures, "r_write_csv.csv"))
# Named rows (mtcars): the first column holds the car names.
write.csv(head(mtcars, 8), file.path(fixtures, "r_named_rows.csv"))
