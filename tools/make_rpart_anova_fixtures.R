# Reference outputs of R's rpart with method = "anova" (regression trees) for Quercus.
#
# Run from the repository root:   Rscript tools/make_rpart_anova_fixtures.R
# then  gzip -9nf tests/data/rpart_anova/out/*/*.json
# Needs R and rpart only (Debian: r-base-core r-cran-rpart); the JSON writer is base R and
# prints every double with the fewest digits (15..17) that round-trip.
#
# Inputs : the bundled airquality and penguins files (src/quercus/data/bundled), rpart's own
#          kyphosis, and credit-g / labor as vendored for the classification fixtures
#          (tests/data/rpart/data).
# Outputs: tests/data/rpart_anova/data/NAME.csv (+ .levels.csv, .schema.json, .folds.csv),
#          tests/data/rpart_anova/out/NAME/FIT.json (+ FIT.txt: print, printcp, summary),
#          tests/data/rpart_anova/out/index.json.

suppressPackageStartupMessages(library(rpart))

top <- "tests/data/rpart_anova"
datadir <- file.path(top, "data")
outdir <- file.path(top, "out")
dir.create(datadir, showWarnings = FALSE, recursive = TRUE)
dir.create(outdir, showWarnings = FALSE, recursive = TRUE)

## ---------------------------------------------------------------- JSON writer
jarr <- function(x) structure(list(x), class = "jarr")   # force an array
num1 <- function(v) {
    if (is.na(v)) return("null")
    if (is.infinite(v)) stop("infinite value in output")
    for (d in 15:17) {
        s <- sprintf(paste0("%.", d, "g"), v)
        if (as.numeric(s) == v) return(s)
    }
    s
}
jstr <- function(s) {
    if (is.na(s)) return("null")
    s <- gsub("\\\\", "\\\\\\\\", s)
    s <- gsub("\"", "\\\\\"", s)
    paste0("\"", s, "\"")
}
jatom <- function(v) {
    if (is.factor(v)) v <- as.character(v)
    if (is.logical(v)) return(ifelse(is.na(v), "null", ifelse(v, "true", "false")))
    if (is.character(v)) return(vapply(v, jstr, ""))
    if (is.numeric(v)) return(vapply(as.numeric(v), num1, ""))
    stop("cannot write class ", class(v))
}
to_json <- function(x, ind = "") {
    nxt <- paste0(ind, "  ")
    if (is.null(x)) return("null")
    if (inherits(x, "jarr")) {
        v <- x[[1]]
        if (is.list(v)) return(to_json(unname(v), ind))
        return(paste0("[", paste(jatom(v), collapse = ", "), "]"))
    }
    if (is.list(x)) {
        if (length(x) == 0) return(if (is.null(names(x))) "[]" else "{}")
        parts <- vapply(seq_along(x), function(i) to_json(x[[i]], nxt), "")
        if (is.null(names(x)))
            return(paste0("[\n", nxt, paste(parts, collapse = paste0(",\n", nxt)), "\n", ind, "]"))
        keys <- vapply(names(x), jstr, "")
        return(paste0("{\n", nxt, paste(paste0(keys, ": ", parts), collapse = paste0(",\n", nxt)),
                      "\n", ind, "}"))
    }
    if (length(x) == 1 && is.null(names(x))) return(jatom(x))
    if (!is.null(names(x))) return(to_json(as.list(x), ind))
    to_json(jarr(x), ind)
}
write_json <- function(x, path) writeLines(to_json(x), path, useBytes = TRUE)

## ---------------------------------------------------------------- data
# every data set is written as NAME.csv (missing = empty cell) + NAME.levels.csv (declared
# factor levels in order) and read back from there, so R fits exactly what Python reads
export_dataset <- function(name, df) {
    out <- df
    for (v in names(out)) out[[v]] <- as.character(out[[v]])
    stopifnot(!any(grepl("[,\"]", unlist(lapply(out, as.character)))))
    write.csv(out, file.path(datadir, paste0(name, ".csv")), row.names = FALSE, na = "",
              quote = FALSE)
    lv <- do.call(rbind, lapply(names(df), function(v) if (is.factor(df[[v]]))
        data.frame(column = v, position = seq_along(levels(df[[v]])), level = levels(df[[v]]))))
    if (is.null(lv)) lv <- data.frame(column = character(0), position = integer(0),
                                      level = character(0))
    write.csv(lv, file.path(datadir, paste0(name, ".levels.csv")), row.names = FALSE)
}

load_dataset <- function(name) {
    raw <- read.csv(file.path(datadir, paste0(name, ".csv")), colClasses = "character",
                    na.strings = character(0), check.names = FALSE)
    lv <- read.csv(file.path(datadir, paste0(name, ".levels.csv")), colClasses = "character",
                   check.names = FALSE)
    d <- raw
    for (v in names(raw)) {
        x <- raw[[v]]
        x[x == ""] <- NA
        if (v %in% lv$column) {
            l <- lv[lv$column == v, ]
            f <- factor(x, levels = l$level[order(as.integer(l$position))])
            if (any(is.na(f) & !is.na(x))) stop("undeclared value in ", name, "$", v)
            d[[v]] <- f
        } else {
            d[[v]] <- as.numeric(x)
            if (any(is.na(d[[v]]) & !is.na(x))) stop("bad number in ", name, "$", v)
        }
    }
    d
}

vendored <- function(name) {   # the classification fixtures' copy (csv + levels)
    src <- "tests/data/rpart/data"
    invisible(file.copy(file.path(src, paste0(name, ".csv")), file.path(datadir, paste0(name, ".csv")),
              overwrite = TRUE))
    invisible(file.copy(file.path(src, paste0(name, ".levels.csv")),
              file.path(datadir, paste0(name, ".levels.csv")), overwrite = TRUE))
}

## ---------------------------------------------------------------- extraction
split_rows <- function(fit) {
    ff <- fit$frame
    sp <- fit$splits
    if (is.null(sp)) return(list())
    xlev <- attr(fit, "xlevels")
    rows <- list()
    k <- 0
    for (r in seq_len(nrow(ff))) {
        if (ff$var[r] == "<leaf>") next
        roles <- c("primary", rep("competitor", ff$ncompete[r]),
                   rep("surrogate", ff$nsurrogate[r]))
        for (role in roles) {
            k <- k + 1
            var <- rownames(sp)[k]
            ncat <- sp[k, "ncat"]
            rec <- list(node = as.integer(rownames(ff)[r]), role = role, var = var,
                        count = sp[k, "count"], ncat = ncat, improve = sp[k, "improve"],
                        index = sp[k, "index"],
                        adj = if (role == "surrogate") sp[k, "adj"] else NULL)
            if (abs(ncat) == 1) {
                rec$cut <- sp[k, "index"]
                rec$left <- if (ncat == -1) "<" else ">="
            } else {
                cs <- fit$csplit[sp[k, "index"], seq_len(ncat)]
                levs <- xlev[[var]]
                rec$left_levels <- jarr(levs[cs == 1])
                rec$right_levels <- jarr(levs[cs == 3])
                rec$absent_levels <- jarr(levs[cs == 2])
            }
            rows[[k]] <- rec
        }
    }
    stopifnot(k == nrow(sp))
    rows
}

frame_cols <- function(fit) {
    ff <- fit$frame
    list(node = jarr(as.integer(rownames(ff))), var = jarr(as.character(ff$var)),
         n = jarr(ff$n), wt = jarr(ff$wt), dev = jarr(ff$dev), yval = jarr(ff$yval),
         complexity = jarr(ff$complexity), ncompete = jarr(ff$ncompete),
         nsurrogate = jarr(ff$nsurrogate))
}

cp_cols <- function(fit) {
    cpt <- fit$cptable
    out <- list(CP = jarr(cpt[, "CP"]), nsplit = jarr(cpt[, "nsplit"]),
                rel_error = jarr(cpt[, "rel error"]))
    if ("xerror" %in% colnames(cpt)) {
        out$xerror <- jarr(cpt[, "xerror"])
        out$xstd <- jarr(cpt[, "xstd"])
    }
    out
}

## 1-SE rule: the first row of least xerror gives the line xerror + xstd; the chosen tree is
## the first row (fewest splits) whose xerror is <= that line
one_se <- function(cpt) {
    xe <- cpt[, "xerror"]; xs <- cpt[, "xstd"]
    m <- which(xe == min(xe))[1]
    thr <- xe[m] + xs[m]
    j <- which(xe <= thr)[1]
    list(min_row = unname(m), min_xerror = unname(xe[m]), threshold = unname(thr), chosen_row = unname(j),
         chosen_cp = unname(cpt[j, "CP"]), chosen_nsplit = unname(cpt[j, "nsplit"]))
}

newdata_where <- function(fit, d, usesurrogate = NULL) {
    f <- fit
    if (!is.null(usesurrogate)) f$control$usesurrogate <- usesurrogate
    mf <- model.frame(delete.response(fit$terms), d, na.action = na.pass,
                      xlev = attr(fit, "xlevels"))
    w <- rpart:::pred.rpart(f, rpart:::rpart.matrix(mf))
    as.integer(rownames(fit$frame))[w]
}

preds <- function(fit, d) {
    nodes <- as.integer(rownames(fit$frame))
    wt <- rep(NA_integer_, nrow(d))
    names(wt) <- rownames(d)
    if (!is.null(fit$where)) wt[names(fit$where)] <- nodes[fit$where]
    list(where_train = jarr(unname(wt)),
         where_newdata = jarr(newdata_where(fit, d)),
         where_newdata_usesurrogate_0 = jarr(newdata_where(fit, d, 0L)),
         where_newdata_usesurrogate_1 = jarr(newdata_where(fit, d, 1L)),
         where_newdata_usesurrogate_2 = jarr(newdata_where(fit, d, 2L)),
         predict_newdata = jarr(unname(predict(fit, d))))
}

## xpred.rpart at the grid the cross-validation uses (10 CP[1], then geometric means of
## consecutive CPs) and the xerror / xstd recomputed from it: squared errors e over the rows
## used, case weights w (1 without), xerror = sum(w e) / root deviance,
## xstd = sqrt(sum(w e^2) - sum(w e)^2 / sum(w)) / root deviance
xpred_block <- function(fit, folds_used, w) {
    if (nrow(fit$frame) == 1L) return(NULL)
    CP <- fit$cptable[, "CP"]
    m <- length(CP)
    grid <- c(10 * CP[1], if (m > 1) sqrt(CP[-m] * CP[-1]))
    xp <- xpred.rpart(fit, xval = folds_used, cp = grid)
    e <- (fit$y - xp)^2
    root <- fit$frame$dev[1]
    se <- colSums(w * e)
    list(cp_grid = jarr(unname(grid)),
         xerror_recomputed = jarr(unname(se / root)),
         xstd_recomputed = jarr(unname(sqrt(pmax(0, colSums(w * e^2) - se^2 / sum(w))) / root)),
         max_abs_diff_xerror = max(abs(se / root - fit$cptable[, "xerror"])))
}

fit_json <- function(name, tag, fit, d, folds, note, extra = list()) {
    ctl <- fit$control
    ctl$xval <- sprintf("vector of fold ids: data/%s.folds.csv (%d folds)", name,
                        length(unique(folds)))
    res <- list(dataset = name, fit = tag, note = note, method = fit$method,
                R_version = R.version.string,
                rpart_version = as.character(packageVersion("rpart")),
                call = paste(deparse(fit$call, width.cutoff = 500L), collapse = " "),
                features = jarr(sub("^`(.*)`$", "\\1", attr(fit$terms, "term.labels"))),
                control = ctl,
                n_rows_data = nrow(d), n_used = fit$frame$n[1],
                dropped_by_na_rpart = jarr(if (is.null(fit$na.action)) integer(0)
                                           else as.integer(fit$na.action)),
                root_dev = fit$frame$dev[1],
                cptable = cp_cols(fit))
    if ("xerror" %in% colnames(fit$cptable)) res$one_se <- one_se(fit$cptable)
    res$frame <- frame_cols(fit)
    res$splits <- split_rows(fit)
    vi <- fit$variable.importance
    res$variable_importance <- if (is.null(vi)) list() else
        lapply(seq_along(vi), function(i) list(var = names(vi)[i], importance = unname(vi[i])))
    res$predictions <- preds(fit, d)
    c(res, extra)
}

dump_text <- function(fit, path) {
    sink(path)
    on.exit(sink())
    cat("== print(fit)\n"); print(fit)
    cat("\n== printcp(fit)\n"); printcp(fit, digits = 7)
    cat("\n== summary(fit)\n"); summary(fit)
}

## ---------------------------------------------------------------- data sets
aq <- read.csv("src/quercus/data/bundled/airquality.csv")
export_dataset("airquality", aq)
pg <- read.csv("src/quercus/data/bundled/penguins.csv", stringsAsFactors = TRUE)
export_dataset("penguins", pg[, c("species", "island", "bill_length_mm", "bill_depth_mm",
                                  "flipper_length_mm", "sex", "year", "body_mass_g")])
export_dataset("kyphosis", rpart::kyphosis[, c("Kyphosis", "Number", "Start", "Age")])
vendored("credit-g")
vendored("labor")

datasets <- list(
    airquality = list(target = "Ozone", seed = 201),
    penguins = list(target = "body_mass_g", seed = 202),
    kyphosis = list(target = "Age", seed = 203),
    "credit-g" = list(target = "credit_amount", seed = 204),
    labor = list(target = "wage-increase-first-year", seed = 205))
extra_runs <- list(
    labor = list(minsplit10 = list(control = list(minsplit = 10L),
                                   note = "minsplit = 10 (minbucket = round(10/3) = 3)")),
    kyphosis = list(maxdepth2 = list(control = list(maxdepth = 2L, cp = 0),
                                     note = "maxdepth = 2, cp = 0")),
    airquality = list(minbucket3 = list(control = list(minbucket = 3L, cp = 0.001),
                                        note = "minbucket = 3 (minsplit = 9), cp = 0.001"),
                      weights = list(control = list(), weights = function(d) d$Day %% 3 + 1,
                                     note = "case weights Day %% 3 + 1 (stored as case_weights)")))

index <- list()
for (name in names(datasets)) {
    d <- load_dataset(name)
    target <- datasets[[name]]$target
    form <- as.formula(paste0("`", target, "` ~ ."))
    set.seed(datasets[[name]]$seed)
    folds <- sample(rep(1:10, length.out = nrow(d)))
    write.csv(data.frame(row = seq_len(nrow(d)), fold = folds),
              file.path(datadir, paste0(name, ".folds.csv")), row.names = FALSE)
    cols <- lapply(names(d), function(v) {
        x <- d[[v]]
        if (is.factor(x)) list(name = v, type = "nominal", levels = jarr(levels(x)),
                               n_missing = sum(is.na(x)))
        else list(name = v, type = "numeric", n_missing = sum(is.na(x)))
    })
    write_json(list(name = name, target = target, n_rows = nrow(d),
                    missing = "empty CSV cell; R reads it as NA",
                    level_order = "the order of NAME.levels.csv; unused levels kept",
                    columns = cols),
               file.path(datadir, paste0(name, ".schema.json")))
    dir.create(file.path(outdir, name), showWarnings = FALSE)
    runs <- list(
        default = list(control = list(), note = "all rpart defaults; xval = the saved folds"),
        cp0 = list(control = list(cp = 0), note = "cp = 0 (full cp table); other defaults"),
        sur0 = list(control = list(usesurrogate = 0L), note = "usesurrogate = 0"),
        sur1 = list(control = list(usesurrogate = 1L), note = "usesurrogate = 1"))
    runs <- c(runs, extra_runs[[name]])
    made <- character(0)
    for (tag in names(runs)) {
        r <- runs[[tag]]
        ctl <- do.call(rpart.control, c(r$control, list(xval = folds)))
        extra <- list()
        case_w <- rep(1, nrow(d))
        if (is.null(r$weights)) {
            fit <- rpart(form, data = d, method = "anova", control = ctl)
        } else {
            case_w <- r$weights(d)   # found by model.frame in the formula's environment
            fit <- rpart(form, data = d, weights = case_w, method = "anova", control = ctl)
            extra$case_weights <- jarr(case_w)
        }
        drop <- if (is.null(fit$na.action)) integer(0) else -fit$na.action
        used <- if (length(drop)) folds[drop] else folds
        extra$xpred <- xpred_block(fit, used, if (length(drop)) case_w[drop] else case_w)
        write_json(fit_json(name, tag, fit, d, folds, r$note, extra),
                   file.path(outdir, name, paste0(tag, ".json")))
        dump_text(fit, file.path(outdir, name, paste0(tag, ".txt")))
        made <- c(made, tag)
        if (tag %in% c("default", "cp0")) {
            s <- one_se(fit$cptable)
            pf <- prune(fit, cp = s$chosen_cp)
            ptag <- paste0(tag, "_1se")
            stopifnot(nrow(pf$frame) == 2 * s$chosen_nsplit + 1)
            write_json(fit_json(name, ptag, pf, d, folds,
                                sprintf("prune(%s fit, cp = CP of cptable row %d, the 1-SE rule)",
                                        tag, s$chosen_row)),
                       file.path(outdir, name, paste0(ptag, ".json")))
            dump_text(pf, file.path(outdir, name, paste0(ptag, ".txt")))
            made <- c(made, ptag)
        }
        cat(sprintf("%-11s %-11s nodes=%3d nsplit(max)=%3d\n", name, tag, nrow(fit$frame),
                    max(fit$cptable[, "nsplit"])))
    }
    index[[name]] <- list(target = target, n_rows = nrow(d), fits = jarr(made),
                          folds = paste0("data/", name, ".folds.csv"),
                          seed = datasets[[name]]$seed)
}
write_json(list(R_version = R.version.string,
                rpart_version = as.character(packageVersion("rpart")),
                method = "anova", datasets = index),
           file.path(outdir, "index.json"))
