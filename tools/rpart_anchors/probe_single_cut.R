# Black-box probes of rpart's improve arithmetic (docs/rpart.md, "Ties between variables").
#
#   Rscript tools/rpart_anchors/probe_single_cut.R probes.csv params.csv results.txt
#
# probes.csv: columns probe, x0 [, x1 ...], y, w (one row per case; y a class label, w its
# case weight). params.csv: columns probe, prior, loss (priors ";"-separated, the loss matrix
# row-major ";"-separated; empty for rpart's defaults). Each probe is fitted with one cut
# (cp = -1, maxdepth = 1, minsplit = 2, minbucket = 1, no surrogates, no cross-validation);
# results.txt gets one line per split: probe, variable, improve and index as %.17g.
suppressMessages(library(rpart))
args <- commandArgs(TRUE)
d0 <- read.csv(args[1], stringsAsFactors = FALSE)
pp <- read.csv(args[2], stringsAsFactors = FALSE)
ctl <- rpart.control(cp = -1, maxdepth = 1, minsplit = 2, minbucket = 1, maxcompete = 50,
                     maxsurrogate = 0, xval = 0)
out <- c()
for (id in pp$probe) {
  d <- d0[d0$probe == id, ]
  d$y <- factor(d$y)
  K <- nlevels(d$y)
  parms <- list(split = "gini")
  r <- pp[pp$probe == id, ]
  if (!is.na(r$prior) && r$prior != "") parms$prior <- as.numeric(strsplit(r$prior, ";")[[1]])
  if (!is.na(r$loss) && r$loss != "")
    parms$loss <- matrix(as.numeric(strsplit(r$loss, ";")[[1]]), K, K, byrow = TRUE)
  xs <- grep("^x", names(d), value = TRUE)
  form <- as.formula(paste("y ~", paste(xs, collapse = "+")))
  dd <- d[, c(xs, "y", "w")]
  fit <- tryCatch(rpart(form, data = dd, weights = w, method = "class", parms = parms,
                        control = ctl), error = function(e) NULL)
  if (is.null(fit)) next
  s <- fit$splits
  for (i in seq_len(nrow(s)))
    out <- c(out, paste(id, rownames(s)[i], sprintf("%.17g", s[i, "improve"]),
                        sprintf("%.17g", s[i, "index"])))
}
writeLines(out, args[3])
