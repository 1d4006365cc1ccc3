export {
  addMonths,
  type CalendarMonth,
  dayIn,
  daysInMonth,
  type IsoDate,
  isCalendarDate,
  localDate,
  localDateTime,
  localDateTimeWithOffset,
  monthOf,
  monthsBetween,
} from './calendar';
export { type Clock, type SimulatedClock, simulatedClock, systemClock } from './clock';
