/**
 * `GET /api/v1/receivables/debtors` over the demo rows. The query parsing, filtering, paging and
 * summary live in functions/domain/debtors-query.ts, shared with the debtors report so that the
 * report and the sandbox answer every query the same way; this module only names them as the
 * sandbox has always used them.
 */
export {
  type DebtorsQueryParse,
  type DebtorsQueryResult as DebtorsPage,
  type ParsedDebtorsQuery,
  parseDebtorsQuery,
  queryDebtors as selectDebtors,
} from '../functions/domain/debtors-query.ts';
