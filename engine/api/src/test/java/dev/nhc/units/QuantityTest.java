package dev.nhc.units;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class QuantityTest {

    @ParameterizedTest
    @CsvSource({"30s,30", "5m,300", "2h,7200", "500ms,0.5", "1d,86400", "45,45"})
    void durations(String text, double seconds) {
        assertEquals(Duration.ofNanos(Math.round(seconds * 1e9)), Quantity.parseDuration(text));
    }

    @ParameterizedTest
    @CsvSource({"10GiB,10737418240", "1KiB,1024", "1kB,1000", "1KB,1000", "2MB,2000000", "10G,10737418240", "512,512", "1TiB,1099511627776"})
    void sizes(String text, long bytes) {
        assertEquals(bytes, Quantity.parseBytes(text));
    }

    @Test
    void percentWithDecimalsKeepsItsValue() {
        Quantity q = Quantity.parse("99.9%");
        assertEquals(Dimension.PERCENT, q.dimension());
        assertEquals(99.9, q.in(Unit.PERCENT), 1e-9);
        assertTrue(q.fits(Unit.PERCENT));
        assertFalse(q.fits(Unit.BYTES));
    }

    @Test
    void ratesConvertBetweenMinutesAndSeconds() {
        assertEquals(60.0, Quantity.parse("1/s").in(Unit.PER_MINUTE), 1e-9);
        assertEquals(5.0, Quantity.parse("5/min").in(Unit.PER_MINUTE), 1e-9);
    }

    @Test
    void bareNumbersTakeTheFieldsUnit() {
        Quantity q = Quantity.parse("95");
        assertNull(q.dimension());
        assertEquals(95.0, q.in(Unit.PERCENT));
        assertTrue(q.fits(Unit.CELSIUS));
        assertFalse(q.fits(Unit.TEXT));
    }

    @Test
    void temperatureAndPower() {
        assertEquals(Dimension.TEMPERATURE, Quantity.parse("90C").dimension());
        assertEquals(300.0, Quantity.parse("300W").in(Unit.WATTS));
    }

    @Test
    void malformedTextIsRejectedWithTheText() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Quantity.parse("> 5"));
        assertTrue(e.getMessage().contains("'> 5'"), e.getMessage());
        IllegalArgumentException unit = assertThrows(IllegalArgumentException.class, () -> Quantity.parse("5 GB/s"));
        assertTrue(unit.getMessage().contains("GB/s"), unit.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Quantity.parseDuration("10GiB"));
        assertThrows(IllegalArgumentException.class, () -> Quantity.parseBytes("30s"));
    }

    @Test
    void formatsBytesForPeople() {
        assertEquals("10.0 GiB", Quantity.formatBytes(10737418240.0));
        assertEquals("512 B", Quantity.formatBytes(512));
        assertEquals("97.25", Quantity.formatNumber(97.25));
        assertEquals("3", Quantity.formatNumber(3.0));
        assertEquals("1.5 MiB", Quantity.formatBytes(1.5 * 1024 * 1024));
        assertEquals("1.2 KiB", Quantity.formatBytes(1250));
    }

    @Test
    void numbersKeepFourSignificantDigitsWithoutExponents() {
        assertEquals("97.25", Quantity.formatNumber(97.245));
        assertEquals("0.3333", Quantity.formatNumber(1 / 3.0));
        assertEquals("12350", Quantity.formatNumber(12345.678));
        assertEquals("0.0003125", Quantity.formatNumber(0.0003125));
        assertEquals("-2.5", Quantity.formatNumber(-2.5));
        assertEquals("99.9", Quantity.formatNumber(99.9));
        assertEquals("NaN", Quantity.formatNumber(Double.NaN));
    }
}
