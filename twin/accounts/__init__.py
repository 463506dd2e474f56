"""Premium-player deposit accounts (Singapore Casino Control (Credit) Regulations 2010, regs
2, 2A, 2B, 3 and 4): the exact ledger of an account by form of deposit, and the day-by-day
replay of the patron's premium-player status under the conventions of accounts.md."""
