import type { SaleMethod } from '../api.js';

/**
 * The printed words of receipts and the end of day, per language (docs/receipts.md,
 * "Language and time zone"): English and German, like the counter page's catalogs. A
 * locale of another language prints English. Both catalogs have every key (the type says
 * so); the German is what a German card terminal prints ("Kundenbeleg", "Zahlung erfolgt").
 */
export interface ReceiptWords {
  customerCopy: string;
  merchantCopy: string;
  /** The name of a merchant the agent has not read yet. */
  merchantFallback: string;
  merchant: string;
  terminal: string;
  date: string;
  time: string;
  operator: string;
  method: string;
  card: string;
  number: string;
  entry: string;
  /** The amount's label: a sale's, or an operation's with its title. */
  amount: (title: string, sale: boolean) => string;
  originalSale: string;
  saleServerId: string;
  saleClientId: string;
  serverId: string;
  clientId: string;
  platformStatus: string;
  note: string;
  titles: { sale: string; refund: string; cancel: string; reversal: string; capture: string };
  methods: Record<SaleMethod, string>;
  entryModes: Readonly<Record<string, string>>;
  outcomes: {
    approved: string;
    refunded: string;
    cancelled: string;
    reversed: string;
    captured: string;
    declined: string;
    notCompleted: string;
    notConfirmed: string;
  };
  details: {
    refunded: string;
    notCharged: string;
    approvedOffline: string;
    storedOffline: string;
    nothingCharged: string;
    notDone: string;
    nothingIsCharged: string;
    staffCheck: string;
  };
  footers: { customer: string; merchant: string };
  eod: {
    title: string;
    day: string;
    timeZone: string;
    from: string;
    to: string;
    printed: string;
    none: string;
    total: string;
    count: string;
    amountColumn: string;
    net: string;
    byMerchant: string;
    byMethod: string;
    byOperator: string;
    defaultMerchant: string;
    otherMethod: string;
    unknownOperator: string;
    /** At most 15 characters: the 32-column table keeps the label beside its count and amount. */
    figures: {
      sales: string;
      refunds: string;
      cancels: string;
      captures: string;
      offlinePending: string;
      needsAttention: string;
      inProgress: string;
      notCompleted: string;
    };
  };
}

const en: ReceiptWords = {
  customerCopy: 'CUSTOMER COPY',
  merchantCopy: 'MERCHANT COPY',
  merchantFallback: 'Merchant',
  merchant: 'Merchant',
  terminal: 'Terminal',
  date: 'Date',
  time: 'Time',
  operator: 'Operator',
  method: 'Method',
  card: 'Card',
  number: 'Number',
  entry: 'Entry',
  amount: (title, sale) => (sale ? 'AMOUNT' : `${title} AMOUNT`),
  originalSale: 'Original sale',
  saleServerId: 'Sale server id',
  saleClientId: 'Sale client id',
  serverId: 'Server id',
  clientId: 'Client id',
  platformStatus: 'Platform status',
  note: 'Note',
  titles: { sale: 'SALE', refund: 'REFUND', cancel: 'CANCELLATION', reversal: 'REVERSAL', capture: 'CAPTURE' },
  methods: { card: 'Card', manual: 'Manual entry', moto: 'MOTO', walletA: 'walletA', walletB: 'walletB' },
  entryModes: { ContactChip: 'Chip', ContactlessChip: 'Contactless', Magstripe: 'Swiped', Keyed: 'Keyed' },
  outcomes: {
    approved: 'APPROVED',
    refunded: 'REFUNDED',
    cancelled: 'CANCELLED',
    reversed: 'REVERSED',
    captured: 'CAPTURED',
    declined: 'DECLINED',
    notCompleted: 'NOT COMPLETED',
    notConfirmed: 'NOT CONFIRMED',
  },
  details: {
    refunded: 'The amount goes back to the card or wallet',
    notCharged: 'The amount is not charged',
    approvedOffline: 'Approved offline',
    storedOffline: 'Approved offline, sent to the platform later',
    nothingCharged: 'Nothing was charged',
    notDone: 'Not done',
    nothingIsCharged: 'Nothing is charged',
    staffCheck: 'Staff must check this payment',
  },
  footers: { customer: 'Please keep this receipt', merchant: 'Keep for your records' },
  eod: {
    title: 'END OF DAY',
    day: 'Day',
    timeZone: 'Time zone',
    from: 'From',
    to: 'To',
    printed: 'Printed',
    none: 'No transactions',
    total: 'TOTAL',
    count: 'count',
    amountColumn: 'amount',
    net: 'Net',
    byMerchant: 'BY MERCHANT',
    byMethod: 'BY METHOD',
    byOperator: 'BY OPERATOR',
    defaultMerchant: 'Default merchant',
    otherMethod: 'Other',
    unknownOperator: 'Unknown operator',
    figures: {
      sales: 'Sales',
      refunds: 'Refunds',
      cancels: 'Cancels',
      captures: 'Captures',
      offlinePending: 'Offline pending',
      needsAttention: 'Needs attention',
      inProgress: 'In progress',
      notCompleted: 'Not completed',
    },
  },
};

const de: ReceiptWords = {
  customerCopy: 'KUNDENBELEG',
  merchantCopy: 'HÄNDLERBELEG',
  merchantFallback: 'Händler',
  merchant: 'Händler',
  terminal: 'Terminal',
  date: 'Datum',
  time: 'Uhrzeit',
  operator: 'Bediener',
  method: 'Zahlart',
  card: 'Karte',
  number: 'Nummer',
  entry: 'Eingabe',
  amount: () => 'BETRAG',
  originalSale: 'Ursprüngliche Zahlung',
  saleServerId: 'Zahlung Server-ID',
  saleClientId: 'Zahlung Client-ID',
  serverId: 'Server-ID',
  clientId: 'Client-ID',
  platformStatus: 'Plattform-Status',
  note: 'Notiz',
  titles: {
    sale: 'ZAHLUNG',
    refund: 'GUTSCHRIFT',
    cancel: 'STORNO',
    reversal: 'TECHNISCHES STORNO',
    capture: 'BUCHUNG',
  },
  methods: { card: 'Karte', manual: 'Manuelle Eingabe', moto: 'MOTO', walletA: 'walletA', walletB: 'walletB' },
  entryModes: { ContactChip: 'Chip', ContactlessChip: 'Kontaktlos', Magstripe: 'Magnetstreifen', Keyed: 'Manuell' },
  outcomes: {
    approved: 'ZAHLUNG ERFOLGT',
    refunded: 'ERSTATTET',
    cancelled: 'STORNIERT',
    reversed: 'STORNIERT',
    captured: 'GEBUCHT',
    declined: 'ABGELEHNT',
    notCompleted: 'NICHT DURCHGEFÜHRT',
    notConfirmed: 'NICHT BESTÄTIGT',
  },
  details: {
    refunded: 'Der Betrag geht zurück auf Karte oder Wallet',
    notCharged: 'Der Betrag wird nicht belastet',
    approvedOffline: 'Offline genehmigt',
    storedOffline: 'Offline genehmigt, wird später übermittelt',
    nothingCharged: 'Es wurde nichts belastet',
    notDone: 'Nicht ausgeführt',
    nothingIsCharged: 'Es wird nichts belastet',
    staffCheck: 'Personal muss diese Zahlung prüfen',
  },
  footers: { customer: 'Bitte Beleg aufbewahren', merchant: 'Für Ihre Unterlagen' },
  eod: {
    title: 'TAGESABSCHLUSS',
    day: 'Tag',
    timeZone: 'Zeitzone',
    from: 'Von',
    to: 'Bis',
    printed: 'Gedruckt',
    none: 'Keine Umsätze',
    total: 'SUMME',
    count: 'Anz.',
    amountColumn: 'Betrag',
    net: 'Netto',
    byMerchant: 'NACH HÄNDLER',
    byMethod: 'NACH ZAHLART',
    byOperator: 'NACH BEDIENER',
    defaultMerchant: 'Standard-Händler',
    otherMethod: 'Sonstige',
    unknownOperator: 'Unbekannter Bediener',
    figures: {
      sales: 'Umsätze',
      refunds: 'Gutschriften',
      cancels: 'Stornos',
      captures: 'Buchungen',
      offlinePending: 'Offline offen',
      needsAttention: 'Zu prüfen',
      inProgress: 'In Bearbeitung',
      notCompleted: 'Nicht erfolgt',
    },
  },
};

const CATALOGS: Readonly<Record<string, ReceiptWords>> = { en, de };

/** The words for a locale ("de-DE" prints German); English for any other language. */
export function receiptWords(locale: string): ReceiptWords {
  return CATALOGS[locale.split('-')[0]?.toLowerCase() ?? 'en'] ?? en;
}
