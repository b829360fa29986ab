# Black-box probes of rpart's improve for categorical splits with three or more classes
# (docs/rpart.md, "Categorical splits with three or more classes").
#
#   Rscript tools/rpart_anchors/probe_categorical.R probes.csv params.csv results.txt
#
# probes.csv: columns probe, x0 [, x1 ...] (level labels), y (class label), w (case weight).
# params.csv: columns probe, lev_x0 [, lev_x1 ...] (each predictor's level order,
# ";"-separated), ylev (the class order, ";"-separated), prior (";"-separated or empty),
# optionally split ("gini" or "information") and maxdepth (1 if absent). An empty level label
# in probes.csv is a missing value. Each probe is fitted with cp = -1, minsplit = 2,
# minbucket = 1, no surrogates, no cross-validation, every competitor kept; results.txt gets
# one line per split: probe, variable, improve as %.17g, the csplit row (1 left, 3 right, 2
# absent) and the node.
suppressMessages(library(rpart))
args <- commandArgs(TRUE)
d0 <- read.csv(args[1], stringsAsFactors = FALSE, colClasses = "character")
pp <- read.csv(args[2], stringsAsFactors = FALSE, colClasses = "character")
out <- c()
for (id in pp$probe) {
  d <- d0[d0$probe == id, ]
  r <- pp[pp$probe == id, ]
  d$y <- factor(d$y, levels = strsplit(r$ylev, ";")[[1]])
  xs <- grep("^x", names(d), value = TRUE)
  for (x in xs) d[[x]] <- factor(d[[x]], levels = strsplit(r[[paste0("lev_", x)]], ";")[[1]])
  d$w <- as.numeric(d$w)
  depth <- if (!is.null(r$maxdepth) && !is.na(r$maxdepth) && r$maxdepth != "") as.integer(r$maxdepth) else 1L
  ctl <- rpart.control(cp = -1, maxdepth = depth, minsplit = 2, minbucket = 1, maxcompete = 50,
                       maxsurrogate = 0, xval = 0)
  split <- if (!is.null(r$split) && !is.na(r$split) && r$split != "") r$split else "gini"
  parms <- list(split = split)
  if (!is.na(r$prior) && r$prior != "") parms$prior <- as.numeric(strsplit(r$prior, ";")[[1]])
  form <- as.formula(paste("y ~", paste(xs, collapse = "+")))
  dd <- d[, c(xs, "y", "w")]
  fit <- tryCatch(rpart(form, data = dd, weights = w, method = "class", parms = parms,
                        control = ctl), error = function(e) NULL)
  if (is.null(fit) || is.null(fit$splits)) next
  s <- fit$splits
  fr <- fit$frame
  inner <- which(fr$var != "<leaf>")
  node <- rep(as.integer(rownames(fr))[inner], 1 + fr$ncompete[inner] + fr$nsurrogate[inner])
  for (i in seq_len(nrow(s))) {
    cs <- if (s[i, "ncat"] > 1) paste(fit$csplit[s[i, "index"], ], collapse = "") else ""
    out <- c(out, paste(id, rownames(s)[i], sprintf("%.17g", s[i, "improve"]), cs, node[i]))
  }
}
writeLines(out, args[3])
